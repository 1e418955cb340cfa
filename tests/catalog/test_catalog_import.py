import json
from pathlib import Path

import pytest

from toolcatalog import selectors, services
from toolcatalog.models import Category, HypotheticalQuery, QuerySource, Tool

pytestmark = pytest.mark.django_db

DEMO = Path(__file__).resolve().parents[2] / "toolcatalog" / "fixtures" / "demo_catalog.json"


def demo_document() -> dict:
    return json.loads(DEMO.read_text())


def test_demo_catalog_imports_whole() -> None:
    document = demo_document()
    report = services.import_catalog(document)
    assert report.rejected == []
    assert Tool.objects.count() == len(document["tools"]) >= 60
    assert Category.objects.count() == len(document["categories"]) >= 8
    assert Tool.objects.filter(core=True).exists()
    pages = Category.objects.get(name="pages")
    assert pages.parent.name == "cms"


def test_reimport_of_the_same_document_changes_nothing() -> None:
    services.import_catalog(demo_document())
    report = services.import_catalog(demo_document())
    assert report.created == [] and report.updated == [] and report.rejected == []
    assert len(report.unchanged) == len(demo_document()["tools"]) + len(demo_document()["categories"])


def test_curated_queries_survive_a_reimport() -> None:
    services.import_catalog(demo_document())
    tool = Tool.objects.get(name="play_music")
    HypotheticalQuery.objects.create(tool=tool, text="blast my workout mix", source=QuerySource.CURATED)
    services.import_catalog(demo_document())
    assert tool.hypothetical_queries.filter(text="blast my workout mix", source=QuerySource.CURATED).exists()


def test_bad_entries_are_reported_and_good_ones_imported() -> None:
    document = {
        "format": "toolcatalog/v1",
        "categories": [{"name": "music"}, {"name": "bad name!"}],
        "tools": [
            {"name": "play_music", "description": "Play a song", "category": "music"},
            {"name": "broken", "description": "Bad schema", "parameters": {"type": "object", "properties": 3}},
            {"name": "orphan", "description": "No such category", "category": "nowhere"},
            {"name": "linked", "description": "Links to a ghost", "related_tools": ["ghost", "play_music"]},
        ],
    }
    report = services.import_catalog(document)
    assert sorted(Tool.objects.values_list("name", flat=True)) == ["linked", "play_music"]
    reasons = {r["name"]: r["reason"] for r in report.rejected}
    assert "'broken'" in reasons["broken"] and "parameters" in reasons["broken"]
    assert "'nowhere' does not exist" in reasons["orphan"]
    assert "bad name!" in reasons["bad name!"]
    assert "ghost" in reasons["linked"]
    assert list(Tool.objects.get(name="linked").related_tools.values_list("name", flat=True)) == ["play_music"]


def test_a_document_that_is_not_a_catalog_is_rejected_whole() -> None:
    with pytest.raises(services.CatalogImportError, match="toolcatalog/v1"):
        services.import_catalog({"tools": [{"name": "x", "description": "y"}]})
    assert not Tool.objects.exists()


def test_dry_run_reports_without_writing() -> None:
    report = services.import_catalog(demo_document(), dry_run=True)
    assert len(report.created) == len(demo_document()["tools"]) + len(demo_document()["categories"])
    assert not Tool.objects.exists() and not Category.objects.exists()


def test_export_then_import_into_an_empty_catalog_gives_the_same_catalog() -> None:
    services.import_catalog(demo_document())
    exported = selectors.catalog_document()
    Tool.objects.all().delete()
    Category.objects.all().delete()
    services.import_catalog(exported)
    assert selectors.catalog_document() == exported
