"""Export a toolcatalog/v1 catalog as v1, OpenAI, Anthropic, MCP, Gemini or Bedrock tool lists.

OpenAI, Anthropic, Gemini and Bedrock names go through a :class:`NameMap` over
the whole catalog, so exported names are valid, unique and map back exactly.
"""

from __future__ import annotations

from typing import Any

from engine import NameMap, ToolEntry, render_tool

from .detect import ANTHROPIC, BEDROCK, GEMINI, MCP, OPENAI, OPENAPI, V1, canonical_format
from .errors import InterchangeError
from .mcp import tags_to_annotations
from .model import ParsedCatalog
from .toolcatalog_v1 import export_v1, parse_v1

# What a catalog can be exported as (every door: API, command, admin download).
EXPORT_FORMATS: tuple[str, ...] = (V1, OPENAI, ANTHROPIC, MCP, GEMINI, BEDROCK)


def _as_parsed(catalog: dict[str, Any] | ParsedCatalog) -> ParsedCatalog:
    """Validate a v1 dict (or pass a ParsedCatalog through); refuse bad entries."""
    if isinstance(catalog, ParsedCatalog):
        return catalog
    parsed = parse_v1(catalog)
    if parsed.rejected:
        problems = "; ".join(str(r) for r in parsed.rejected[:5])
        more = f" (and {len(parsed.rejected) - 5} more)" if len(parsed.rejected) > 5 else ""
        raise InterchangeError(f"cannot export a catalog with invalid entries: {problems}{more}")
    return parsed


def catalog_name_map(catalog: dict[str, Any] | ParsedCatalog) -> NameMap:
    """The NameMap an OpenAI, Anthropic, Gemini or Bedrock export of ``catalog`` uses."""
    return NameMap(tool["name"] for tool in _as_parsed(catalog).tools)


def export_tool(tool: dict[str, Any], fmt: str, names: NameMap) -> Any:
    """One v1 tool entry as an OpenAI, Anthropic, MCP, Gemini or Bedrock definition: the engine's
    rendering (what a route answer holds), plus the annotations an MCP listing carries."""
    entry = ToolEntry(name=tool["name"], description=tool["description"], category=tool.get("category"),
                      parameters=tool["parameters"])
    rendered = render_tool(entry, fmt, names.external(tool["name"], fmt))
    if fmt == MCP and (annotations := tags_to_annotations(tool.get("tags", []))):
        rendered["annotations"] = annotations
    return rendered


def export_catalog(catalog: dict[str, Any] | ParsedCatalog, format: str = V1) -> dict[str, Any] | list[Any]:
    """Render a v1 catalog in ``format``: "toolcatalog/v1", "openai", "anthropic", "mcp", "gemini" or "bedrock".

    Gemini's is the ``tools`` list of a generateContent request (one Tool of function
    declarations), Bedrock's the ``toolConfig`` of a Converse request.

    Every tool is exported (filtering disabled tools is the caller's choice).
    Raises InterchangeError for an unknown format or a catalog with invalid entries.
    """
    fmt = canonical_format(format)
    if fmt == OPENAPI:
        raise InterchangeError("export to OpenAPI is not supported; use one of " + ", ".join(EXPORT_FORMATS))
    parsed = _as_parsed(catalog)
    if fmt == V1:
        return export_v1(parsed)
    names = NameMap(t["name"] for t in parsed.tools)
    tools = [export_tool(t, fmt, names) for t in parsed.tools]
    if fmt == GEMINI:
        return [{"functionDeclarations": tools}] if tools else []  # a Tool must declare something
    return {"tools": tools} if fmt in (MCP, BEDROCK) else tools
