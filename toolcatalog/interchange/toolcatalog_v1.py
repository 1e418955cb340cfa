"""Import and export the native toolcatalog/v1 document."""

from __future__ import annotations

from typing import Any

from .detect import V1, describe_keys
from .errors import InterchangeError
from .model import CatalogBuilder, ParsedCatalog


def check_v1(doc: Any) -> None:
    """Raise InterchangeError unless ``doc`` has the v1 top-level shape."""
    if not isinstance(doc, dict) or not isinstance(doc.get("tools", []), list):
        raise InterchangeError(
            f"expected a toolcatalog/v1 document {{\"format\": \"{V1}\", \"categories\": [...], "
            f"\"tools\": [...]}}; found {describe_keys(doc)}"
        )
    if doc.get("format", V1) != V1:
        raise InterchangeError(f"expected \"format\": \"{V1}\"; found {doc.get('format')!r}")
    if doc.get("categories") is not None and not isinstance(doc["categories"], list):
        raise InterchangeError("'categories' must be a list of category objects")


def parse_v1(doc: Any, *, for_ranking: bool = False) -> ParsedCatalog:
    """Import a v1 document, filling defaults and rejecting malformed entries."""
    check_v1(doc)
    builder = CatalogBuilder(V1, for_ranking=for_ranking)
    for index, category in enumerate(doc.get("categories") or []):  # null: none, as the field left out
        builder.add_category(index, category)
    for index, tool in enumerate(doc.get("tools", [])):
        builder.add_entry(index, tool, dict)
    return builder.finish()


def export_v1(catalog: ParsedCatalog) -> dict[str, Any]:
    """The catalog as a v1 document; ``tags`` only where a tool has some."""
    document = catalog.to_document()
    for tool in document["tools"]:
        if not tool.get("tags"):
            tool.pop("tags", None)
    return document
