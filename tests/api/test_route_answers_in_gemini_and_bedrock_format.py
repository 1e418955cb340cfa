"""`format: gemini` and `format: bedrock`: a route answer holds the tools as the catalog export gives
them to Gemini (function declarations, a letter first) and Bedrock (toolSpecs), and the tool_search
meta-tool's definition comes in both forms too. (An empty description, which Bedrock refuses and the
catalog does not store, is left out: tests/engine/test_engine_renders_gemini_and_bedrock.py.)"""
import pytest

from routing.meta_tool import DESCRIPTION, PARAMETERS
from tests.support.catalog import api_client
from toolcatalog import services

pytestmark = pytest.mark.django_db
SCHEMA = {"type": "object", "properties": {"item": {"type": "string"}}, "required": ["item"]}
CATALOG = {"format": "toolcatalog/v1", "categories": [], "tools": [
    {"name": "1password.get_item", "description": "Get an item from the vault", "parameters": SCHEMA},
    {"name": "files.read_file", "description": "Read a file from disk"},
    {"name": "ping", "description": "Check the service answers"},
]}


@pytest.fixture
def client(db):
    services.import_catalog(CATALOG)
    return api_client(["route", "catalog"], name="gemini-and-bedrock")


def routed_tools(client, fmt: str) -> list:
    # select:/./ loads every tool the key may see, whatever the ranking says.
    response = client.post("/api/v1/route", {"query": "select:/./", "format": fmt, "limit": 10}, format="json")
    assert response.status_code == 200, response.content
    return response.json()["tools"]


def exported_tools(client, fmt: str) -> dict[str, object]:
    """The export's definition of each tool, by catalog name (both exports list the tools in one order)."""
    names = [t["name"] for t in client.get("/api/v1/catalog/export", {"format": "toolcatalog/v1"}).json()["tools"]]
    exported = client.get("/api/v1/catalog/export", {"format": fmt}).json()
    tools = exported[0]["functionDeclarations"] if fmt == "gemini" else exported["tools"]
    return dict(zip(names, tools, strict=True))


@pytest.mark.parametrize("fmt", ["gemini", "bedrock"])
def test_route_answers_the_tools_as_the_export_gives_them(client, fmt: str) -> None:
    exported = exported_tools(client, fmt)
    assert sorted(map(str, routed_tools(client, fmt))) == sorted(map(str, exported.values()))


def test_gemini_names_start_with_a_letter_or_underscore(client) -> None:
    assert routed_tools(client, "gemini")[0] == {
        "name": "_1password__get_item", "description": "Get an item from the vault", "parametersJsonSchema": SCHEMA}
    assert {t["name"] for t in routed_tools(client, "gemini")} == {"_1password__get_item", "files__read_file", "ping"}


def test_bedrock_takes_toolspecs_named_as_for_openai(client) -> None:
    specs = {t["toolSpec"]["name"]: t["toolSpec"] for t in routed_tools(client, "bedrock")}
    assert set(specs) == {"1password__get_item", "files__read_file", "ping"}
    assert specs["1password__get_item"] == {"name": "1password__get_item", "description": "Get an item from the vault",
                                            "inputSchema": {"json": SCHEMA}}


def test_the_meta_tool_definition_in_gemini_and_bedrock_form(client) -> None:
    gemini = client.get("/api/v1/tool-search/definition", {"format": "gemini"})
    bedrock = client.get("/api/v1/tool-search/definition", {"format": "bedrock"})
    assert gemini.status_code == bedrock.status_code == 200, (gemini.content, bedrock.content)
    assert gemini.json()["tool"] == {"name": "tool_search", "description": DESCRIPTION, "parametersJsonSchema": PARAMETERS}
    assert bedrock.json()["tool"] == {"toolSpec": {"name": "tool_search", "description": DESCRIPTION,
                                                   "inputSchema": {"json": PARAMETERS}}}
    assert "tool_search" in gemini.json()["system_prompt"] and bedrock.json()["format"] == "bedrock"
