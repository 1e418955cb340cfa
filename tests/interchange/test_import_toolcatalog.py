"""toolcatalog/v1 documents: defaults, references between entries."""

from pathlib import Path

import pytest

from toolcatalog.interchange import InterchangeError, parse_catalog

FILES = Path(__file__).parent / "files"


@pytest.fixture(scope="module")
def catalog():
    return parse_catalog((FILES / "toolcatalog-v1.json").read_text())


def test_full_entries_are_kept(catalog) -> None:
    play = catalog.tools[0]
    assert play == {
        "name": "play_music", "description": "Play a song or playlist", "category": "music",
        "parameters": {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]},
        "hypothetical_queries": ["play some jazz", "put on a song"],
        "usage_hint": "Returns a track id; follow with get_artist_info for details.",
        "related_tools": ["search_music"], "core": False, "enabled": True,
        "tags": [], "source": "toolcatalog/v1",
    }


def test_missing_optional_fields_take_spec_defaults(catalog) -> None:
    podcast = next(t for t in catalog.tools if t["name"] == "play_podcast")
    assert podcast["parameters"] == {"type": "object", "properties": {}}
    assert podcast["hypothetical_queries"] == [] and podcast["related_tools"] == []
    assert podcast["usage_hint"] == "" and podcast["core"] is False and podcast["enabled"] is True
    podcasts = catalog.categories[1]
    assert podcasts == {"name": "podcasts", "description": "Find and play podcast episodes",
                        "keywords": [], "workflow_hint": "", "parent": "music", "enabled": True}


def test_dotted_names_flags_and_tags(catalog) -> None:
    tools = {t["name"]: t for t in catalog.tools}
    assert tools["calendar.events.create"]["core"] is True
    assert tools["get_current_time"]["enabled"] is False and tools["get_current_time"]["category"] is None
    assert tools["search_music"]["tags"] == ["read-only"]
    assert catalog.rejected == [] and catalog.warnings == []


def test_undeclared_category_is_added_and_unknown_references_warned() -> None:
    doc = {"format": "toolcatalog/v1",
           "tools": [{"name": "x", "category": "misc", "related_tools": ["nope"]}]}
    catalog = parse_catalog(doc)
    assert [c["name"] for c in catalog.categories] == ["misc"]
    assert any("'nope'" in w for w in catalog.warnings)


def test_missing_type_in_parameters_is_filled() -> None:
    doc = {"format": "toolcatalog/v1", "tools": [{"name": "x", "parameters": {"properties": {}}}]}
    assert parse_catalog(doc).tools[0]["parameters"] == {"properties": {}, "type": "object"}


def test_v1_named_explicitly_without_format_line() -> None:
    doc = {"tools": [{"name": "x", "parameters": {"type": "object"}, "core": True}]}
    assert parse_catalog(doc, format="toolcatalog/v1").tools[0]["core"] is True


def test_null_categories_are_no_categories() -> None:
    parsed = parse_catalog({"format": "toolcatalog/v1", "categories": None,
                            "tools": [{"name": "ping", "description": "Check a host answers", "category": "net"}]})
    assert [t["name"] for t in parsed.tools] == ["ping"]
    assert [c["name"] for c in parsed.categories] == ["net"]  # declared by its tool, as when the field is left out


@pytest.mark.parametrize("categories", [False, "", {}, 0])
def test_categories_that_are_not_a_list_or_null_refuse_the_file(categories) -> None:
    with pytest.raises(InterchangeError, match="'categories' must be a list"):
        parse_catalog({"format": "toolcatalog/v1", "categories": categories, "tools": []})
