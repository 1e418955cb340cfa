"""Catalog interchange: import and export toolcatalog/v1 and the formats tools come in.

Pure functions over plain dicts (no Django), so the API, the admin, fixtures,
management commands and benchmarks all convert catalogs the same way.

    parsed = parse_catalog(text_or_dict)          # detect + import
    parsed.tools, parsed.categories, parsed.rejected
    export_catalog(parsed.to_document(), "openai")
"""

from .detect import ANTHROPIC, FORMATS, MCP, OPENAI, OPENAPI, V1
from .errors import InterchangeError, Rejection
from .export import catalog_name_map, export_catalog
from .model import ParsedCatalog, default_parameters
from .names import (CATALOG_NAME_RE, PROVIDER_NAME_RE, NameMap, external_name, is_catalog_name,
                    is_provider_name, sanitize_name)
from .parse import detect_format, parse_catalog

__all__ = [
    "ANTHROPIC", "CATALOG_NAME_RE", "FORMATS", "MCP", "OPENAI", "OPENAPI", "PROVIDER_NAME_RE", "V1",
    "InterchangeError", "NameMap", "ParsedCatalog", "Rejection", "catalog_name_map", "default_parameters",
    "detect_format", "export_catalog", "external_name", "is_catalog_name", "is_provider_name",
    "parse_catalog", "sanitize_name",
]
