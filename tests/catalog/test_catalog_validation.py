import pytest
from django.core.exceptions import ValidationError

from toolcatalog.models import Category, Tool
from toolcatalog.services import save_validated

pytestmark = pytest.mark.django_db


def test_name_outside_the_alphabet_is_rejected_with_the_tool_named() -> None:
    with pytest.raises(ValidationError) as error:
        save_validated(Tool(name="play music!", description="Play a song"))
    assert "play music!" in error.value.message_dict["name"][0]
    assert not Tool.objects.exists()


def test_dotted_mcp_names_up_to_128_characters_are_accepted() -> None:
    save_validated(Tool(name="files.read_file", description="Read a file"))
    save_validated(Tool(name="a" * 128, description="Long name"))
    with pytest.raises(ValidationError):
        save_validated(Tool(name="b" * 129, description="Too long"))


def test_invalid_json_schema_names_the_tool_and_the_fault() -> None:
    bad = {"type": "object", "properties": {"query": {"type": "strng"}}}
    with pytest.raises(ValidationError) as error:
        save_validated(Tool(name="search", description="Search", parameters=bad))
    message = error.value.message_dict["parameters"][0]
    assert "'search'" in message and "properties/query/type" in message


def test_parameters_must_describe_an_object() -> None:
    with pytest.raises(ValidationError) as error:
        save_validated(Tool(name="search", description="Search", parameters={"type": "string"}))
    assert "type 'object'" in error.value.message_dict["parameters"][0]


def test_duplicate_tool_name_is_rejected() -> None:
    save_validated(Tool(name="search", description="Search"))
    with pytest.raises(ValidationError) as error:
        save_validated(Tool(name="search", description="Another"))
    assert "name" in error.value.message_dict


def test_category_parent_cycle_is_rejected() -> None:
    cms = save_validated(Category(name="cms"))
    pages = save_validated(Category(name="pages", parent=cms))
    cms.parent = pages
    with pytest.raises(ValidationError) as error:
        save_validated(cms)
    assert "cycle" in error.value.message_dict["parent"][0]
    cms.refresh_from_db()
    assert cms.parent is None
