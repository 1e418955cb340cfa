"""Gemini's Schema as its REST reference writes it imports: the int64 counts (minItems, maxLength, ...)
as JSON strings, a TYPE_UNSPECIFIED type, and nullable beside anyOf. Before, the first two rejected
the whole tool ("'1' is not of type 'integer'") and the third lost the null silently."""
from __future__ import annotations

from typing import Any

from toolcatalog.interchange import parse_catalog


def imported_property(schema: dict[str, Any]) -> dict[str, Any]:
    declaration = {"name": "tag_photos", "description": "Tag photos",
                   "parameters": {"type": "OBJECT", "properties": {"value": schema}}}
    catalog = parse_catalog({"functionDeclarations": [declaration]})
    assert catalog.rejected == [], catalog.rejected
    return catalog.tools[0]["parameters"]["properties"]["value"]


def test_counts_written_as_strings_are_numbers() -> None:
    tags = {"type": "ARRAY", "minItems": "1", "maxItems": "10",
            "items": {"type": "STRING", "minLength": "2", "maxLength": "30"}}
    assert imported_property(tags) == {"type": "array", "minItems": 1, "maxItems": 10,
                                       "items": {"type": "string", "minLength": 2, "maxLength": 30}}
    assert imported_property({"type": "OBJECT", "minProperties": "1", "maxProperties": "3"}) == {
        "type": "object", "minProperties": 1, "maxProperties": 3}


def test_type_unspecified_is_no_type() -> None:
    assert imported_property({"type": "TYPE_UNSPECIFIED", "description": "Anything"}) == {"description": "Anything"}


def test_nullable_beside_any_of_admits_null() -> None:
    either = {"anyOf": [{"type": "STRING"}, {"type": "INTEGER"}], "nullable": True}
    assert imported_property(either) == {"anyOf": [{"type": "string"}, {"type": "integer"}, {"type": "null"}]}

