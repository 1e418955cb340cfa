"""The engine renders Gemini function declarations and Bedrock toolSpecs, one function for route
answers, the meta-tool and the export: Gemini names a letter or "_" first, Bedrock leaves out an
empty description (it refuses one), a tool without parameters gets an empty object schema."""
from engine import NameMap, RouteRequest, ToolEntry, render_definition, render_tool, route

EMPTY = {"type": "object", "properties": {}}
SCHEMA = {"type": "object", "properties": {"item": {"type": "string"}}}


def test_route_answers_gemini_declarations_with_a_letter_first(make_index) -> None:
    index = make_index((ToolEntry("1password.get_item", "Get a vault item", None, SCHEMA),), ())
    tools = route(index, RouteRequest(query="vault item", strategy="bm25", format="gemini"), embed_texts=None).tools
    assert tools == [{"name": "_1password__get_item", "description": "Get a vault item", "parametersJsonSchema": SCHEMA}]


def test_route_answers_bedrock_toolspecs_without_an_empty_description(make_index) -> None:
    index = make_index((ToolEntry("files.ping", "", None, {}), ToolEntry("files.read", "Read files", None, SCHEMA)), ())
    asked = RouteRequest(query="", format="bedrock", required=(("files.ping", "explicit"), ("files.read", "explicit")))
    tools = route(index, asked, embed_texts=None).tools
    assert tools == [
        {"toolSpec": {"name": "files__ping", "inputSchema": {"json": EMPTY}}},
        {"toolSpec": {"name": "files__read", "description": "Read files", "inputSchema": {"json": SCHEMA}}}]


def test_render_tool_and_render_definition_agree() -> None:
    tool = ToolEntry("1password.get_item", "Get a vault item", None, SCHEMA)
    for fmt in ("gemini", "bedrock"):
        name = NameMap([tool.name]).external(tool.name, fmt)
        assert render_tool(tool, fmt, name) == render_definition(fmt, name, tool.description, SCHEMA)
