"""A provider's tool list imported over the catalog (a refreshed list, the catalog's own export)
updates what it says of each tool and leaves what it cannot say: categories, usage hints, core
and enabled flags, tags, related tools."""
from __future__ import annotations

import pytest

from tests.support.catalog import api_client, load_demo_catalog
from toolcatalog import selectors
from toolcatalog.models import Tool

CURATED = ("category", "usage_hint", "core", "enabled", "tags", "related_tools")


def curated_fields(document: dict) -> dict[str, tuple]:
    return {t["name"]: tuple(str(t[field]) for field in CURATED) for t in document["tools"]}


@pytest.fixture
def demo(db) -> dict:
    load_demo_catalog(embed=False)
    Tool.objects.filter(name="play_music").update(enabled=False, tags=["audio"])
    return selectors.catalog_document()


@pytest.mark.parametrize("fmt", ["openai", "anthropic", "mcp"])
def test_the_catalogs_own_export_changes_nothing(demo, fmt) -> None:
    client = api_client(["catalog"], name=f"refresh-{fmt}")
    exported = client.get("/api/v1/catalog/export", {"format": fmt}).json()
    report = client.post("/api/v1/catalog/import", {"document": exported}, format="json").json()
    assert report["counts"]["rejected"] == 0 and report["counts"]["created"] == 0
    assert curated_fields(selectors.catalog_document()) == curated_fields(demo)
    assert Tool.objects.get(name="play_music").enabled is False


def test_a_changed_description_is_taken_and_the_rest_kept(demo) -> None:
    client = api_client(["catalog"], name="refresh")
    exported = client.get("/api/v1/catalog/export", {"format": "openai"}).json()
    function = next(t["function"] for t in exported if t["function"]["name"] == "play_music")
    function["description"] = "Play music from the library, by artist, album or mood."
    report = client.post("/api/v1/catalog/import", {"document": exported}, format="json").json()
    assert report["updated"] == ["play_music"]
    tool = Tool.objects.get(name="play_music")
    assert tool.description == function["description"]
    assert (tool.enabled, tool.tags, tool.category.name) == (False, ["audio"], "music")


@pytest.mark.parametrize("fmt", ["openai", "mcp"])
def test_a_named_category_still_files_the_tools(demo, fmt) -> None:
    client = api_client(["catalog"], name="refresh")
    exported = client.get("/api/v1/catalog/export", {"format": fmt}).json()
    tools = exported["tools"] if isinstance(exported, dict) else exported
    played = [t for t in tools if (t.get("function") or t)["name"] == "play_music"]
    document = {**exported, "tools": played} if isinstance(exported, dict) else played
    report = client.post("/api/v1/catalog/import", {"document": document, "category": "weather"}, format="json").json()
    assert report["updated"] == ["play_music"], report
    assert Tool.objects.get(name="play_music").category.name == "weather"
