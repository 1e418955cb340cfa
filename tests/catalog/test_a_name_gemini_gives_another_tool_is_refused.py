"""Gemini calls `1password.get_item` `_1password__get_item` (a name must start with a letter or `_`
there). A new tool of that literal name would take the spelling, and Gemini's calls with it, so it is
refused at every door, as `files__read_file` beside `files.read_file` is. An OpenAI or Anthropic list
never maps that name back: it defines a tool of that very name; only a Gemini document's names map back."""
import pytest

from tests.support.catalog import api_client
from toolcatalog import services
from toolcatalog.models import Tool

pytestmark = pytest.mark.django_db
VAULT = {"name": "1password.get_item", "description": "Get an item from the vault"}
LITERAL = {"name": "_1password__get_item", "description": "Literally named so"}


def v1(*tools: dict) -> dict:
    return {"format": "toolcatalog/v1", "categories": [], "tools": list(tools)}


def openai_tool(name: str, description: str) -> dict:
    return {"type": "function", "function": {"name": name, "description": description,
                                             "parameters": {"type": "object", "properties": {}}}}


def descriptions() -> dict[str, str]:
    return dict(Tool.objects.values_list("name", "description"))


def test_a_new_tool_named_as_gemini_calls_another_is_refused() -> None:
    services.import_catalog(v1(VAULT))
    report = services.import_any([openai_tool("_1password__get_item", "Literally named so")], format="openai")
    assert [r["reason"] for r in report["rejected"]] == [
        "tool '_1password__get_item': _1password__get_item is how Gemini sees the tool 1password.get_item; "
        "pick another name (agents calling 1password.get_item would reach this one instead)."]
    assert descriptions() == {"1password.get_item": "Get an item from the vault"}
    response = api_client(["catalog"]).post("/api/v1/tools", LITERAL, format="json")
    assert response.status_code == 400 and "how Gemini sees the tool 1password.get_item" in response.content.decode()


def test_an_openai_list_updates_a_literal_tool_that_came_first() -> None:
    services.import_catalog(v1(LITERAL))
    services.import_catalog(v1(VAULT))  # Gemini's `_1password__get_item` is taken: 1password.get_item gets another
    report = services.import_any([openai_tool("1password__get_item", "Get a vault item"),
                                  openai_tool("_1password__get_item", "Still literally named so")], format="openai")
    assert report["rejected"] == [] and "_1password__get_item" in report["updated"]
    assert descriptions() == {"1password.get_item": "Get a vault item", "_1password__get_item": "Still literally named so"}


def test_a_gemini_list_updates_the_tool_gemini_calls_so() -> None:
    services.import_catalog(v1(VAULT))
    report = services.import_any([{"functionDeclarations": [
        {"name": "_1password__get_item", "description": "Gemini's text"}]}])
    assert report["format"] == "gemini" and report["rejected"] == []
    assert descriptions() == {"1password.get_item": "Gemini's text"}
