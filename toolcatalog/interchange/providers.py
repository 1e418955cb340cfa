"""Import OpenAI and Anthropic tool lists.

Both carry only name, description and a parameter schema, so they map onto
the v1 fields directly; everything else takes the SPEC defaults.
"""

from __future__ import annotations

from typing import Any

from engine import NameMap

from .detect import ANTHROPIC, OPENAI, describe_keys
from .errors import InterchangeError
from .model import CatalogBuilder, EntryError, ParsedCatalog


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


def parse_openai(doc: Any, name_map: NameMap | None = None, *, for_ranking: bool = False) -> ParsedCatalog:
    """Import an OpenAI tool list in any of its shapes."""
    builder = CatalogBuilder(OPENAI, name_map, for_ranking=for_ranking)
    for index, entry in enumerate(openai_entries(doc)):
        builder.add_entry(index, entry, openai_fields)
    return builder.finish()


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
    builder = CatalogBuilder(ANTHROPIC, name_map, for_ranking=for_ranking)
    for index, entry in enumerate(anthropic_entries(doc)):
        builder.add_entry(index, entry, anthropic_fields)
    return builder.finish()
