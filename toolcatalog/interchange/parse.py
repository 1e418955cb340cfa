"""Entry points: detect a document's format and import it as toolcatalog/v1."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine import NameMap

from .detect import ANTHROPIC, BEDROCK, GEMINI, MCP, OPENAI, OPENAPI, V1, canonical_format, detect_loaded, vote
from .errors import InterchangeError
from .limits import DocumentLimits
from .loading import load_document
from .mcp import parse_mcp
from .model import ParsedCatalog
from .openapi import parse_openapi
from .providers import parse_anthropic, parse_bedrock, parse_gemini, parse_openai
from .toolcatalog_v1 import parse_v1

Document = dict[str, Any] | list[Any] | str | bytes


def _load(data: Document, limits: DocumentLimits | None = None) -> Any:
    return load_document(data, limits) if isinstance(data, (str, bytes)) else data


def detect_format(data: Document) -> str:
    """One of "toolcatalog/v1", "openai", "anthropic", "mcp", "openapi", "gemini", "bedrock".

    Raises InterchangeError (with a message for a person) when the document
    matches none of them.
    """
    return detect_loaded(_load(data))


def _only_default_marker(doc: Any) -> bool:
    """True for ``{"tools": [...]}`` or a plain list whose entries say nothing about their format."""
    if isinstance(doc, list):
        return vote(doc) is None
    return isinstance(doc, dict) and set(doc) <= {"tools"} and vote(doc.get("tools") or []) is None


def _bare_functions(doc: Any) -> bool:
    """True for a plain list of ``{"name", "description", "parameters"}`` entries, without OpenAI's markers."""
    return isinstance(doc, list) and not any(isinstance(e, dict) and ("function" in e or "type" in e) for e in doc)


def _check_claim(doc: Any, claimed: str) -> None:
    """Refuse a document that clearly is in another format than the one named."""
    try:
        detected = detect_loaded(doc)
    except InterchangeError:
        return  # the format's own parser explains what it expected
    if claimed == V1 and isinstance(doc, dict) and set(doc) <= {"format", "categories", "tools"}:
        return  # a v1 document without its "format" line looks like a provider list
    if claimed == GEMINI and detected == OPENAI and _bare_functions(doc):
        return  # Gemini declarations with types in lower case look like OpenAI's legacy functions
    if detected != claimed and not _only_default_marker(doc):
        raise InterchangeError(f"the document was imported as {claimed!r} but looks like {detected!r}; "
                               f"import it as {detected!r} or leave the format out")


def parse_catalog(data: Document, format: str | None = None, *, server_name: str | None = None,
                  name_map: NameMap | None = None, limits: DocumentLimits | None = None,
                  for_ranking: bool = False) -> ParsedCatalog:
    """Import a tool catalog in any supported format as toolcatalog/v1 entries.

    ``data`` is a loaded document or its JSON/YAML text.  ``format`` skips
    detection (and is checked against the document).  ``server_name`` names
    a single MCP server (its category and clash prefix).  ``name_map`` maps
    provider-safe names from an earlier OpenAI, Anthropic, Gemini or Bedrock export back to catalog names; the
    other formats carry catalog names, so a name there is the tool of that name.
    Malformed entries land in ``rejected``; a document that is not a catalog
    raises InterchangeError, one that needs more work than ``limits`` allow
    (nesting, size once expanded, YAML aliases, $ref expansions) LimitExceeded.
    ``for_ranking`` keeps the tools only ranking can use (see CatalogBuilder).
    """
    doc = _load(data, limits)
    if format:
        fmt = canonical_format(format)
        _check_claim(doc, fmt)
    else:
        fmt = detect_loaded(doc)
    parsers: dict[str, Callable[[], ParsedCatalog]] = {
        V1: lambda: parse_v1(doc, for_ranking=for_ranking),
        OPENAI: lambda: parse_openai(doc, name_map, for_ranking=for_ranking),
        ANTHROPIC: lambda: parse_anthropic(doc, name_map, for_ranking=for_ranking),
        MCP: lambda: parse_mcp(doc, server_name, for_ranking=for_ranking),
        OPENAPI: lambda: parse_openapi(doc, limits, for_ranking=for_ranking),
        GEMINI: lambda: parse_gemini(doc, name_map, for_ranking=for_ranking),
        BEDROCK: lambda: parse_bedrock(doc, name_map, for_ranking=for_ranking),
    }
    parsed = parsers[fmt]()
    if server_name and fmt != MCP:
        parsed.warnings.append(f"the server name {server_name!r} was not used: it names the server of an MCP "
                               f"document, and this one is {fmt}")
    return parsed
