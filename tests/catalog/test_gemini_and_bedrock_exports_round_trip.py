"""The catalog exported for Gemini or Bedrock (API, command, admin download) imports back (API,
command, admin page): into an empty catalog as the same tools, over the catalog changing nothing."""
from __future__ import annotations

import json
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command

from tests.support.catalog import api_client, load_demo_catalog
from toolcatalog import selectors
from toolcatalog.interchange import catalog_name_map
from toolcatalog.models import Category, Tool

PROVIDERS = ["gemini", "bedrock"]
CURATED = ("category", "usage_hint", "core", "enabled", "tags", "related_tools")


@pytest.fixture
def demo(db) -> dict:
    load_demo_catalog(embed=False)
    Tool.objects.filter(name="play_music").update(enabled=False, tags=["audio"])
    return selectors.catalog_document()


def core_of(document: dict, fmt: str | None = None) -> list[tuple]:
    """Name (as `fmt` spells it: imported into an empty catalog, a tool keeps that spelling),
    description and parameters of every tool."""
    names = catalog_name_map(document)
    return sorted((names.external(t["name"], fmt) if fmt else t["name"], t["description"],
                   json.dumps(t["parameters"], sort_keys=True)) for t in document["tools"])


def curated_fields(document: dict) -> dict[str, tuple]:
    return {t["name"]: tuple(str(t[field]) for field in CURATED) for t in document["tools"]}


@pytest.mark.parametrize("fmt", PROVIDERS)
def test_the_api_export_imports_into_an_empty_catalog_as_the_same_tools(demo, fmt) -> None:
    client = api_client(["catalog"], name=f"round-trip-{fmt}")
    exported = client.get("/api/v1/catalog/export", {"format": fmt})
    assert exported.status_code == 200, exported.content
    Tool.objects.all().delete()
    Category.objects.all().delete()
    report = client.post(f"/api/v1/catalog/import?format={fmt}", exported.json(), format="json").json()
    assert report["format"] == fmt and report["counts"]["rejected"] == 0, report
    assert core_of(selectors.catalog_document()) == core_of(demo, fmt)


@pytest.mark.parametrize("fmt", PROVIDERS)
def test_the_catalogs_own_export_imported_back_changes_nothing(demo, fmt, tmp_path: Path) -> None:
    path = tmp_path / f"{fmt}.json"
    call_command("export_catalog", "--format", fmt, "--output", str(path), stderr=StringIO())
    out = StringIO()
    call_command("import_catalog", str(path), "--format", fmt, stdout=out, stderr=StringIO())
    report = json.loads(out.getvalue())
    assert (report["format"], report["created"], report["updated"], report["rejected"]) == (fmt, 0, 0, 0)
    assert curated_fields(selectors.catalog_document()) == curated_fields(demo)


@pytest.mark.parametrize("fmt", PROVIDERS)
def test_the_admin_page_offers_the_format_both_ways(demo, admin_client_logged_in, fmt) -> None:
    page = admin_client_logged_in.get("/admin/catalog-import/").content.decode()
    assert f"/admin/catalog-export/?format={fmt}" in page and f'<option value="{fmt}">' in page
    download = admin_client_logged_in.get("/admin/catalog-export/", {"format": fmt})
    assert download.status_code == 200 and "attachment" in download["Content-Disposition"]
    preview = admin_client_logged_in.post("/admin/catalog-import/", {
        "text": download.content.decode(), "format": fmt, "action": "preview"}).content.decode()
    assert f"Preview (nothing changed) — {fmt}" in preview
    assert "created 0, updated 0," in preview and "rejected 0," in preview
