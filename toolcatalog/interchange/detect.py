"""Recognise which interchange format a loaded document is in.

Detection looks at the document's own markers (``format``, ``openapi``,
``jsonrpc``, ``toolConfig``, ``functionDeclarations``, ``contents``) first and otherwise lets
the entries of the tool list vote on their shape, so one malformed entry does
not change the verdict.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from .errors import InterchangeError

V1 = "toolcatalog/v1"
OPENAI = "openai"
ANTHROPIC = "anthropic"
MCP = "mcp"
OPENAPI = "openapi"
GEMINI = "gemini"
BEDROCK = "bedrock"
FORMATS = (V1, OPENAI, ANTHROPIC, MCP, OPENAPI, GEMINI, BEDROCK)
# A Gemini Tool object holds its functions under either spelling (REST and JS, or Python's).
GEMINI_DECLARATIONS = ("functionDeclarations", "function_declarations")
GEMINI_JSON_SCHEMA = ("parametersJsonSchema", "parameters_json_schema")
_ALIASES = {"toolcatalog": V1, "v1": V1, "functions": OPENAI, "swagger": OPENAPI}


def canonical_format(name: str) -> str:
    """Normalise a user-supplied format name, or raise for an unknown one."""
    key = name.strip().lower()
    key = _ALIASES.get(key, key)
    if key not in FORMATS:
        raise InterchangeError(f"unknown format {name!r}; supported formats: {', '.join(FORMATS)}")
    return key


def describe_keys(data: Any) -> str:
    """Short description of a document's top level for error messages."""
    if isinstance(data, dict):
        keys = list(data)[:12]
        more = ", ..." if len(data) > 12 else ""
        return "keys: " + (", ".join(repr(k) for k in keys) + more if keys else "none (empty object)")
    if isinstance(data, list):
        return f"a list of {len(data)} entries"
    return f"a {type(data).__name__}"


def entry_shape(entry: Any) -> str | None:
    """The format a single tool entry looks like, or None if it has no marker."""
    if not isinstance(entry, dict):
        return None
    if isinstance(entry.get("function"), dict) or entry.get("type") == "function":
        return OPENAI
    if "toolSpec" in entry:
        return BEDROCK
    if any(key in entry for key in (*GEMINI_DECLARATIONS, *GEMINI_JSON_SCHEMA)):
        return GEMINI
    if "input_schema" in entry:
        return ANTHROPIC
    if "inputSchema" in entry:
        return MCP
    if "parameters" in entry and "name" in entry:
        # Gemini's declarations look like legacy ``functions`` entries, but write types in capitals.
        return GEMINI if has_gemini_types(entry["parameters"]) else OPENAI
    return None


def has_gemini_types(schema: Any) -> bool:
    """True for a Gemini Schema object: its type in capitals ("OBJECT"), which JSON Schema has not."""
    return isinstance(schema, dict) and isinstance(schema.get("type"), str) and schema["type"].isupper()


def vote(entries: list[Any]) -> str | None:
    """The most common entry shape (ties broken by FORMATS order)."""
    counts = Counter(shape for shape in map(entry_shape, entries) if shape)
    if not counts:
        return None
    best = max(counts.values())
    return next(fmt for fmt in FORMATS if counts.get(fmt) == best)


def _is_mcp_server_doc(data: Any) -> bool:
    if not isinstance(data, dict):
        return False
    if data.get("jsonrpc") is not None:
        return True
    return isinstance(data.get("tools"), list) and ("serverInfo" in data or "server" in data)


def _detect_dict(data: dict[str, Any]) -> str:
    if "format" in data:
        if isinstance(data["format"], str) and data["format"].strip() == V1:
            return V1
        raise InterchangeError(
            f"unsupported catalog format {data['format']!r}; this service reads {V1!r} "
            "(or OpenAI, Anthropic, MCP, Gemini and Bedrock tool lists and OpenAPI 3 specs)"
        )
    if "swagger" in data:
        raise InterchangeError(
            f"this is a Swagger/OpenAPI {data['swagger']} document; only OpenAPI 3.0 and 3.1 are supported "
            "(convert it first, e.g. with swagger2openapi or editor.swagger.io)"
        )
    if "openapi" in data:
        return OPENAPI
    if _is_mcp_server_doc(data):
        return MCP
    if isinstance(data.get("servers"), list) and all(_is_mcp_server_doc(s) for s in data["servers"]):
        return MCP
    tool_config = data.get("toolConfig")
    # A Bedrock Converse request, or the toolConfig in one; Gemini's toolConfig holds only its functionCallingConfig.
    if isinstance(tool_config, dict) and "tools" in tool_config:
        return BEDROCK
    if any(key in data for key in GEMINI_DECLARATIONS):  # one Gemini Tool object
        return GEMINI
    if "contents" in data and isinstance(data.get("tools"), list):  # a generateContent request (its own key)
        return GEMINI
    if isinstance(data.get("tools"), list):
        if "categories" in data:
            return V1  # a v1 document that forgot its "format" line
        # The tools decide: an Anthropic Messages request also has model and messages.
        return vote(data["tools"]) or OPENAI
    if isinstance(data.get("functions"), list):
        return OPENAI
    if entry_shape(data):
        raise InterchangeError(
            "this is a single tool definition; wrap it in a list (or in {\"tools\": [...]}) to import it"
        )
    raise InterchangeError(
        "not a tool catalog: expected a toolcatalog/v1 document, an OpenAI/Anthropic/MCP tool list, Gemini "
        f"function declarations, a Bedrock toolConfig or an OpenAPI 3 spec; found {describe_keys(data)}"
    )


def _detect_list(data: list[Any]) -> str:
    if data and all(_is_mcp_server_doc(item) for item in data):
        return MCP
    shape = vote(data)
    if shape:
        return shape
    if not data:
        raise InterchangeError("the document is an empty list; there are no tools to import")
    if all(isinstance(e, dict) and isinstance(e.get("name"), str) and isinstance(e.get("description"), str)
           for e in data):
        return OPENAI  # functions that take no parameters, as {"tools": [...]} of them is read
    raise InterchangeError(
        "not a tool list: none of the entries has 'parameters', 'input_schema', 'inputSchema', 'function', "
        "'functionDeclarations' or 'toolSpec', nor do all have a 'name' and a 'description'; first entry has "
        f"{describe_keys(data[0])}"
    )


def detect_loaded(data: Any) -> str:
    """Format of an already-loaded document; InterchangeError if none fits."""
    if isinstance(data, dict):
        return _detect_dict(data)
    if isinstance(data, list):
        return _detect_list(data)
    raise InterchangeError(f"expected a JSON object or list at the top level; found {describe_keys(data)}")
