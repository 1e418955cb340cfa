"""Exporting the catalog: the one service behind the three doors (API, `manage.py export_catalog`,
the admin's download links)."""
from __future__ import annotations

from typing import Any

from engine import NameMap

from ..interchange import EXPORT_FORMATS, V1, InterchangeError, export_catalog, export_tool
from ..models import Tool
from ..selectors import catalog_document


class CatalogExportError(Exception):
    """The catalog cannot be exported in the asked format (unknown format, invalid entries)."""


def export(*, format: str = V1) -> dict[str, Any] | list[Any]:
    """The whole catalog in `format` (one of EXPORT_FORMATS); raises CatalogExportError."""
    if format not in EXPORT_FORMATS:
        raise CatalogExportError(f"format must be one of {', '.join(EXPORT_FORMATS)}.")
    document = catalog_document()
    if format == V1:
        return document
    try:
        return export_catalog(document, format)
    except InterchangeError as exc:
        raise CatalogExportError(str(exc)) from exc


def tool_definitions(entry: dict[str, Any]) -> dict[str, Any]:
    """One tool (its toolcatalog/v1 entry, saved or not) as each export format holds it; OpenAI and
    Anthropic names mapped as the whole catalog's export maps them."""
    names = NameMap([*Tool.objects.values_list("name", flat=True), entry["name"]])
    return {fmt: entry if fmt == V1 else export_tool(entry, fmt, names) for fmt in EXPORT_FORMATS}
