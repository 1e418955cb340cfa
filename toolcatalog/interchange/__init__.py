"""Catalog interchange: import and export toolcatalog/v1 and the formats tools come in.

Pure functions over plain dicts (no Django), so the API, the admin, fixtures,
management commands and benchmarks all convert catalogs the same way. Tool names
are mapped with the engine's one `NameMap`.

    parsed = parse_catalog(text_or_dict)          # detect + import
    parsed.tools, parsed.categories, parsed.rejected
    export_catalog(parsed.to_document(), "openai")
"""

from .detect import ANTHROPIC, BEDROCK, FORMATS, GEMINI, MCP, OPENAI, OPENAPI, V1
from .errors import InterchangeError, Rejection
from .export import EXPORT_FORMATS, catalog_name_map, export_catalog, export_tool
from .limits import DocumentLimits, LimitExceeded
from .model import ParsedCatalog, default_parameters
from .parse import detect_format, parse_catalog

__all__ = [
    "ANTHROPIC", "BEDROCK", "EXPORT_FORMATS", "FORMATS", "GEMINI", "MCP", "OPENAI", "OPENAPI", "V1", "DocumentLimits",
    "InterchangeError", "LimitExceeded",
    "ParsedCatalog", "Rejection", "catalog_name_map", "default_parameters", "detect_format", "export_catalog", "export_tool",
    "parse_catalog",
]
