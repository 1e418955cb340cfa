"""An OpenAI or Anthropic list defines its tools by the names it holds: `_1password__get_item` there is a
tool of that very name, though Gemini calls `1password.get_item` so. Only a Gemini document's names map
back that way (the doors taking names back accept every spelling, an import must not)."""
import pytest

from toolcatalog import services
from toolcatalog.models import Tool

pytestmark = pytest.mark.django_db
EXISTING = {"format": "toolcatalog/v1", "categories": [], "tools": [
    {"name": "1password.get_item", "description": "Get an item from the vault"}]}


def openai_tool(name: str, description: str) -> dict:
    return {"type": "function", "function": {"name": name, "description": description,
                                             "parameters": {"type": "object", "properties": {}}}}


def descriptions() -> dict[str, str]:
    return dict(Tool.objects.values_list("name", "description"))


@pytest.mark.parametrize("literal_exists", [False, True])
def test_an_openai_list_creates_or_updates_the_literal_tool(literal_exists: bool) -> None:
    services.import_catalog(EXISTING)
    if literal_exists:
        literal = {"name": "_1password__get_item", "description": "Old text"}
        assert services.import_catalog({"format": "toolcatalog/v1", "categories": [], "tools": [literal]}).rejected == []
    report = services.import_any([openai_tool("1password__get_item", "Get a vault item"),
                                  openai_tool("_1password__get_item", "Literally named so")], format="openai")
    assert report["rejected"] == []
    assert "_1password__get_item" in report["updated" if literal_exists else "created"]
    assert descriptions() == {"1password.get_item": "Get a vault item", "_1password__get_item": "Literally named so"}


def test_a_gemini_list_updates_the_tool_gemini_calls_so() -> None:
    services.import_catalog(EXISTING)
    report = services.import_any([{"functionDeclarations": [
        {"name": "_1password__get_item", "description": "Gemini's text"}]}])
    assert report["format"] == "gemini" and report["rejected"] == []
    assert descriptions() == {"1password.get_item": "Gemini's text"}
