"""Exporting the catalog: the one service behind the three doors (API, `manage.py export_catalog`,
the admin's download links)."""
from __future__ import annotations

from typing import Any

from ..interchange import EXPORT_FORMATS, V1, InterchangeError, export_catalog
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
