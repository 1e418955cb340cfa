"""export_catalog renders each format, and importing the export gives the catalog back."""

import json
from pathlib import Path

import pytest

from engine import PROVIDER_NAME_RE
from toolcatalog.interchange import InterchangeError, catalog_name_map, detect_format, export_catalog, parse_catalog

FILES = Path(__file__).parent / "files"
SOURCES = ["toolcatalog-v1.json", "petstore-3.0.yaml", "bookshop-3.1.json", "mcp-github-gitlab.json",
           "openai-tools.json", "anthropic-tools.json"]


def _catalog(filename: str) -> dict:
    return parse_catalog((FILES / filename).read_text()).to_document()


@pytest.mark.parametrize("filename", SOURCES)
def test_v1_export_round_trips_exactly(filename: str) -> None:
    catalog = parse_catalog((FILES / filename).read_text())
    exported = export_catalog(catalog.to_document(), "toolcatalog/v1")
    again = parse_catalog(json.loads(json.dumps(exported)))
    assert again.tools == catalog.tools
    assert again.categories == catalog.categories
    assert again.rejected == []


@pytest.mark.parametrize("filename", SOURCES)
@pytest.mark.parametrize("fmt", ["openai", "anthropic", "mcp"])
def test_provider_export_keeps_name_description_parameters(filename: str, fmt: str) -> None:
    catalog = _catalog(filename)
    exported = json.loads(json.dumps(export_catalog(catalog, fmt)))
    assert detect_format(exported) == fmt
    again = parse_catalog(exported, fmt, name_map=catalog_name_map(catalog))
    keep = ("name", "description", "parameters")
    assert [{k: t[k] for k in keep} for t in again.tools] == [{k: t[k] for k in keep} for t in catalog["tools"]]


def test_openai_export_shape_and_mapped_names() -> None:
    exported = export_catalog(_catalog("toolcatalog-v1.json"), "openai")
    names = [entry["function"]["name"] for entry in exported]
    assert "calendar__events__create" in names and "spotify__get_artist_info" in names
    assert all(PROVIDER_NAME_RE.match(n) for n in names)
    assert exported[0] == {"type": "function", "function": {
        "name": "play_music", "description": "Play a song or playlist",
        "parameters": {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]}}}


def test_anthropic_export_shape() -> None:
    exported = export_catalog(_catalog("mcp-github-gitlab.json"), "anthropic")
    assert exported[0]["name"] == "github__search_repositories"
    assert set(exported[0]) == {"name", "description", "input_schema"}


def test_mcp_export_restores_annotations() -> None:
    exported = export_catalog(_catalog("mcp-github-gitlab.json"), "mcp")
    first = exported["tools"][0]
    assert first["name"] == "github.search_repositories"  # MCP allows dots
    assert first["annotations"] == {"title": "Search repositories", "readOnlyHint": True, "openWorldHint": True}
    again = parse_catalog(exported)
    assert again.tools[0]["tags"] == ["title:Search repositories", "readOnlyHint:true", "openWorldHint:true"]


def test_v1_export_fills_defaults_of_a_sparse_catalog() -> None:
    exported = export_catalog({"format": "toolcatalog/v1", "tools": [{"name": "ping"}]})
    assert exported == {"format": "toolcatalog/v1", "categories": [], "tools": [{
        "name": "ping", "description": "", "category": None, "parameters": {"type": "object", "properties": {}},
        "hypothetical_queries": [], "usage_hint": "", "related_tools": [], "core": False, "enabled": True,
        "source": "toolcatalog/v1"}]}


def test_exporting_an_invalid_catalog_fails_clearly() -> None:
    with pytest.raises(InterchangeError, match="invalid entries: tool #0: missing name"):
        export_catalog({"format": "toolcatalog/v1", "tools": [{"description": "nameless"}]}, "openai")


def test_unsupported_export_format() -> None:
    with pytest.raises(InterchangeError, match="not supported"):
        export_catalog({"tools": []}, "openapi")
    with pytest.raises(InterchangeError, match="unknown format"):
        export_catalog({"tools": []}, "cohere")


def test_long_and_colliding_names_survive_an_openai_round_trip() -> None:
    names = ["svc." + "x" * 90, "svc__" + "x" * 90, "a.b", "a__b"]
    catalog = {"format": "toolcatalog/v1", "tools": [{"name": n, "description": n} for n in names]}
    exported = export_catalog(catalog, "openai")
    externals = [e["function"]["name"] for e in exported]
    assert len(set(externals)) == 4 and all(PROVIDER_NAME_RE.match(e) for e in externals)
    again = parse_catalog(exported, name_map=catalog_name_map(catalog))
    assert [t["name"] for t in again.tools] == names
