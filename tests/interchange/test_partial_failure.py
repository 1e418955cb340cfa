"""A file with some bad entries: good ones import, each bad one is rejected with its reason."""

from pathlib import Path

import pytest

from toolcatalog.interchange import Rejection, parse_catalog

FILES = Path(__file__).parent / "files"


@pytest.fixture(scope="module")
def catalog():
    return parse_catalog((FILES / "openai-partial.json").read_text(encoding="utf-8"))


def test_good_entries_are_imported(catalog) -> None:
    assert [t["name"] for t in catalog.tools] == ["search_flights", "book_hotel_room", "cancel_booking"]
    assert "tool 'book hotel room' renamed to 'book_hotel_room' (illegal characters)" in catalog.warnings
    assert catalog.renamed == {"book_hotel_room": "book hotel room"}


def test_each_bad_entry_has_index_name_and_reason(catalog) -> None:
    reasons = {r.index: r for r in catalog.rejected}
    assert sorted(reasons) == [1, 2, 4, 5, 6, 7, 8, 9, 10]
    assert reasons[1] == Rejection(1, "", "missing name")
    assert reasons[2].name == "get_seat_map" and "must be a JSON object" in reasons[2].reason
    assert "no ASCII letters or digits" in reasons[4].reason
    assert "type 'object', found type 'array'" in reasons[5].reason
    assert reasons[6].reason.startswith("parameters is not a valid JSON Schema at ")
    assert reasons[7].reason == "duplicate name (first used by entry #0)"
    assert "'code_interpreter' is not a function tool" in reasons[8].reason
    assert reasons[9].reason == "entry must be an object, found a string"
    assert "140 characters long; at most 128" in reasons[10].reason


def test_rejection_reads_well(catalog) -> None:
    assert str(catalog.rejected[0]) == "tool #1: missing name"
    assert str(catalog.rejected[1]).startswith("tool #2 'get_seat_map': parameters must be")


def test_bad_v1_entries_and_categories() -> None:
    doc = {"format": "toolcatalog/v1",
           "categories": [{"name": "ok"}, {"description": "no name"}, "music"],
           "tools": [{"name": "a", "description": "fine", "category": "ok"},
                     {"name": "b", "hypothetical_queries": "play jazz"},
                     {"name": "c", "core": "yes"},
                     {"name": "d", "category": 7}]}
    catalog = parse_catalog(doc)
    assert [t["name"] for t in catalog.tools] == ["a"]
    assert [(r.kind, r.index) for r in catalog.rejected] == [
        ("category", 1), ("category", 2), ("tool", 1), ("tool", 2), ("tool", 3)]
    assert catalog.rejected[2].reason == "hypothetical_queries must be a list of strings"
    assert catalog.rejected[3].reason == "core must be true or false, found a string"
