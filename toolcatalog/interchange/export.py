"""Export a toolcatalog/v1 catalog as v1, OpenAI, Anthropic or MCP tool lists.

OpenAI and Anthropic names go through a :class:`NameMap` over the whole
catalog, so exported names are valid, unique and map back exactly.
"""

from __future__ import annotations

from typing import Any

from engine import NameMap, ToolEntry, render_tool

from .detect import ANTHROPIC, MCP, OPENAI, OPENAPI, V1, canonical_format
from .errors import InterchangeError
from .mcp import tags_to_annotations
from .model import ParsedCatalog
from .toolcatalog_v1 import export_v1, parse_v1

# What a catalog can be exported as (every door: API, command, admin download).
EXPORT_FORMATS: tuple[str, ...] = (V1, OPENAI, ANTHROPIC, MCP)


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
    """The NameMap an OpenAI/Anthropic export of ``catalog`` uses."""
    return NameMap(tool["name"] for tool in _as_parsed(catalog).tools)


def export_tool(tool: dict[str, Any], fmt: str, names: NameMap) -> Any:
    """One v1 tool entry as an OpenAI, Anthropic or MCP definition: the engine's rendering (what a
    route answer holds), plus the annotations an MCP listing carries."""
    entry = ToolEntry(name=tool["name"], description=tool["description"], category=tool.get("category"),
                      parameters=tool["parameters"])
    rendered = render_tool(entry, fmt, names.external(tool["name"], fmt))
    if fmt == MCP and (annotations := tags_to_annotations(tool.get("tags", []))):
        rendered["annotations"] = annotations
    return rendered


def export_catalog(catalog: dict[str, Any] | ParsedCatalog, format: str = V1) -> dict[str, Any] | list[Any]:
    """Render a v1 catalog in ``format``: "toolcatalog/v1", "openai", "anthropic" or "mcp".

    Every tool is exported (filtering disabled tools is the caller's choice).
    Raises InterchangeError for an unknown format or a catalog with invalid entries.
    """
    fmt = canonical_format(format)
    if fmt == OPENAPI:
        raise InterchangeError("export to OpenAPI is not supported; use toolcatalog/v1, openai, anthropic or mcp")
    parsed = _as_parsed(catalog)
    if fmt == V1:
        return export_v1(parsed)
    names = NameMap(t["name"] for t in parsed.tools)
    tools = [export_tool(t, fmt, names) for t in parsed.tools]
    return {"tools": tools} if fmt == MCP else tools
