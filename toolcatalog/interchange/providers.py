"""Import OpenAI, Anthropic, Gemini and Bedrock tool lists.

All carry only name, description and a parameter schema, so they map onto
the v1 fields directly; everything else takes the SPEC defaults.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine import NameMap

from .detect import (
    ANTHROPIC,
    BEDROCK,
    GEMINI,
    GEMINI_DECLARATIONS,
    GEMINI_JSON_SCHEMA,
    OPENAI,
    describe_keys,
)
from .errors import InterchangeError
from .model import CatalogBuilder, EntryError, ParsedCatalog
from .schemas import gemini_to_json_schema


def openai_entries(doc: Any) -> list[Any]:
    """The tool entries of any OpenAI shape: tool list, ``tools``/``functions``, chat body."""
    if isinstance(doc, list):
        return doc
    if isinstance(doc, dict):
        tools, functions = doc.get("tools"), doc.get("functions")
        if isinstance(tools, list) or isinstance(functions, list):
            return [*(tools if isinstance(tools, list) else []),
                    *(functions if isinstance(functions, list) else [])]
    raise InterchangeError(
        "expected an OpenAI tool list ([{\"type\": \"function\", \"function\": {...}}], "
        f"{{\"tools\": [...]}}, {{\"functions\": [...]}} or a chat-completions request); found {describe_keys(doc)}"
    )


def openai_fields(entry: dict[str, Any]) -> dict[str, Any]:
    """v1 fields of one OpenAI entry (chat tool, Responses-API tool or legacy function)."""
    kind = entry.get("type")
    if kind is not None and kind != "function":
        raise EntryError(f"tool of type {kind!r} is not a function tool; only function tools can be imported")
    if "function" in entry:
        function = entry["function"]
        if not isinstance(function, dict):
            raise EntryError("'function' must be an object with name, description and parameters")
    else:
        function = entry  # Responses-API tool or legacy ``functions`` entry: fields at top level
    if "parameters" not in function and ("input_schema" in function or "inputSchema" in function):
        raise EntryError("looks like an Anthropic or MCP tool (input_schema), not an OpenAI function")
    return {"name": function.get("name"), "description": function.get("description"),
            "parameters": function.get("parameters")}


def _parse_entries(format: str, entries: list[Any], fields: Callable[[dict[str, Any]], dict[str, Any]],
                   name_map: NameMap | None, for_ranking: bool) -> ParsedCatalog:
    """A provider's tool entries, each read by `fields`, as a parsed catalog."""
    builder = CatalogBuilder(format, name_map, for_ranking=for_ranking)
    for index, entry in enumerate(entries):
        builder.add_entry(index, entry, fields)
    return builder.finish()


def parse_openai(doc: Any, name_map: NameMap | None = None, *, for_ranking: bool = False) -> ParsedCatalog:
    """Import an OpenAI tool list in any of its shapes."""
    return _parse_entries(OPENAI, openai_entries(doc), openai_fields, name_map, for_ranking)


def anthropic_entries(doc: Any) -> list[Any]:
    """The tool entries of an Anthropic list or ``{"tools": [...]}`` (e.g. a Messages request)."""
    if isinstance(doc, list):
        return doc
    if isinstance(doc, dict) and isinstance(doc.get("tools"), list):
        return doc["tools"]
    raise InterchangeError(
        "expected an Anthropic tool list ([{\"name\", \"description\", \"input_schema\"}] or "
        f"{{\"tools\": [...]}}); found {describe_keys(doc)}"
    )


def anthropic_fields(entry: dict[str, Any]) -> dict[str, Any]:
    """v1 fields of one Anthropic client tool; server tools (web search, bash, ...) are refused."""
    kind = entry.get("type")
    if kind not in (None, "custom"):
        raise EntryError(f"Anthropic server tool of type {kind!r} has no input schema; "
                         "only client (custom) tools can be imported")
    if "input_schema" not in entry and "parameters" in entry:
        raise EntryError("looks like an OpenAI function (parameters), not an Anthropic tool (input_schema)")
    return {"name": entry.get("name"), "description": entry.get("description"),
            "parameters": entry.get("input_schema")}


def parse_anthropic(doc: Any, name_map: NameMap | None = None, *, for_ranking: bool = False) -> ParsedCatalog:
    """Import an Anthropic tool list."""
    return _parse_entries(ANTHROPIC, anthropic_entries(doc), anthropic_fields, name_map, for_ranking)


# What a function declaration may hold; an object with none of them is some other kind of tool.
_DECLARATION_FIELDS = {"name", "description", "parameters", *GEMINI_JSON_SCHEMA, "response", "responseJsonSchema",
                       "response_json_schema", "behavior"}


def _gemini_declarations(tool: dict[str, Any]) -> Any:
    return next((tool[key] for key in GEMINI_DECLARATIONS if key in tool), None)


def gemini_entries(doc: Any) -> list[Any]:
    """The function declarations of a Gemini Tool object, a ``tools`` list of them (alone or in a
    generateContent request) or a bare declaration list. A tool object that holds no list of
    declarations (a built-in tool such as ``googleSearch``, garbage) stays an entry of its own,
    so that it is rejected with its reason."""
    if isinstance(doc, dict) and _gemini_declarations(doc) is not None:
        tools: list[Any] = [doc]
    elif isinstance(doc, dict) and isinstance(doc.get("tools"), list):
        tools = doc["tools"]
    elif isinstance(doc, list):
        is_tool_list = any(isinstance(e, dict) and _gemini_declarations(e) is not None for e in doc)
        tools = doc if is_tool_list else [{"functionDeclarations": doc}]
    else:
        raise InterchangeError(
            "expected Gemini function declarations ({\"functionDeclarations\": [...]}, a list of such tools, "
            f"or a list of {{\"name\", \"description\", \"parameters\"}} declarations); found {describe_keys(doc)}"
        )
    entries: list[Any] = []
    for tool in tools:
        declarations = _gemini_declarations(tool) if isinstance(tool, dict) else None
        if not isinstance(declarations, list):
            entries.append(tool)
            continue
        entries += declarations
        # A built-in tool in the same Tool object ({"functionDeclarations": [...], "googleSearch": {}})
        # follows its declarations as an entry of its own, rejected with its reason rather than dropped.
        others = {key: value for key, value in tool.items() if key not in GEMINI_DECLARATIONS}
        if others:
            entries.append(others)
    return entries


def gemini_fields(entry: dict[str, Any]) -> dict[str, Any]:
    """v1 fields of one Gemini function declaration. ``parameters`` is Gemini's Schema (OpenAPI 3.0
    with types in capitals), ``parametersJsonSchema`` plain JSON Schema; ``response`` is ignored."""
    if _gemini_declarations(entry) is not None:
        raise EntryError("'functionDeclarations' must be a list of function declarations")
    if entry and not set(entry) & _DECLARATION_FIELDS:
        raise EntryError(f"a Gemini tool of another kind ({', '.join(map(repr, entry))}) declares no functions; "
                         "only function declarations can be imported")
    json_schema = next((entry[key] for key in GEMINI_JSON_SCHEMA if key in entry), None)
    if json_schema is not None and entry.get("parameters") is not None:
        raise EntryError("has both parameters and parametersJsonSchema; Gemini takes one or the other")
    parameters = json_schema if json_schema is not None else gemini_to_json_schema(entry.get("parameters"))
    return {"name": entry.get("name"), "description": entry.get("description"), "parameters": parameters}


def parse_gemini(doc: Any, name_map: NameMap | None = None, *, for_ranking: bool = False) -> ParsedCatalog:
    """Import Gemini (or Vertex AI) function declarations; entries count across all tool objects."""
    return _parse_entries(GEMINI, gemini_entries(doc), gemini_fields, name_map, for_ranking)


def bedrock_entries(doc: Any) -> list[Any]:
    """The tools of a Bedrock Converse ``toolConfig`` (alone or in a request), or a bare list of them."""
    if isinstance(doc, dict) and isinstance(doc.get("toolConfig"), dict):
        doc = doc["toolConfig"]
    if isinstance(doc, dict) and isinstance(doc.get("tools"), list):
        return doc["tools"]
    if isinstance(doc, list):
        return doc
    raise InterchangeError(
        "expected a Bedrock Converse tool configuration ({\"tools\": [{\"toolSpec\": {...}}]}, "
        f"{{\"toolConfig\": {{\"tools\": [...]}}}} or a list of {{\"toolSpec\": ...}}); found {describe_keys(doc)}"
    )


def tool_spec_fields(spec: dict[str, Any]) -> dict[str, Any]:
    """v1 fields of one Bedrock ``toolSpec``: its schema is the ``json`` of ``inputSchema``."""
    input_schema = spec.get("inputSchema")
    if input_schema is not None and not (isinstance(input_schema, dict) and "json" in input_schema):
        raise EntryError("inputSchema must be an object holding the parameters' schema as 'json'")
    schema = input_schema["json"] if input_schema is not None else None
    if schema is not None and not isinstance(schema, dict):
        found = "a string (put the schema itself there, not its JSON text)" if isinstance(schema, str) \
            else describe_keys(schema)
        raise EntryError(f"inputSchema.json must be the parameters' JSON Schema, an object; found {found}")
    return {"name": spec.get("name"), "description": spec.get("description"),
            "parameters": schema}


def not_a_tool_spec(entry: dict[str, Any]) -> dict[str, Any]:
    """The reason a Bedrock tool entry without a ``toolSpec`` object cannot be imported."""
    if "toolSpec" in entry:
        raise EntryError("'toolSpec' must be an object with name, description and inputSchema")
    if "systemTool" in entry:
        system_tool = entry["systemTool"]
        name = system_tool.get("name") if isinstance(system_tool, dict) else None
        called = f" {name!r}" if isinstance(name, str) else ""
        raise EntryError(f"Bedrock system tool{called} has no input schema; only toolSpec tools can be imported")
    raise EntryError(f"expected a {{\"toolSpec\": {{...}}}} tool; found {describe_keys(entry)}")


def parse_bedrock(doc: Any, name_map: NameMap | None = None, *, for_ranking: bool = False) -> ParsedCatalog:
    """Import a Bedrock Converse tool configuration."""
    builder = CatalogBuilder(BEDROCK, name_map, for_ranking=for_ranking)
    for index, entry in enumerate(bedrock_entries(doc)):
        if isinstance(entry, dict) and set(entry) == {"cachePoint"}:
            continue  # a prompt-cache checkpoint after the tools before it, not a tool
        if isinstance(entry, dict) and isinstance(entry.get("toolSpec"), dict):
            builder.add_entry(index, entry["toolSpec"], tool_spec_fields)
        else:
            builder.add_entry(index, entry, not_a_tool_spec)
    return builder.finish()
