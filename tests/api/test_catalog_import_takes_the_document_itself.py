"""POST /api/v1/catalog/import takes the document itself, as SPEC leads a user to send it (the
export's own output, say), its options in the query; the `{"document": ...}` wrapper still works."""
from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from tests.support.catalog import CatalogRows, api_client, load_demo_catalog
from toolcatalog.models import Tool

pytestmark = pytest.mark.django_db

IMPORT = "/api/v1/catalog/import"


@pytest.fixture
def curator() -> APIClient:
    load_demo_catalog(embed=False)
    return api_client(["catalog"], name="curator")


def test_the_exports_own_output_posted_back_changes_nothing(curator: APIClient) -> None:
    before = CatalogRows.read("")
    exported = curator.get("/api/v1/catalog/export").json()
    response = curator.post(IMPORT, exported, format="json")
    assert response.status_code == 200, response.content
    report = response.json()
    assert report["format"] == "toolcatalog/v1"
    assert (report["counts"]["created"], report["counts"]["updated"], report["counts"]["rejected"]) == (0, 0, 0)
    assert report["counts"]["unchanged"] > 0
    assert CatalogRows.read("").rows == before.rows


def test_a_bare_document_takes_its_options_from_the_query(curator: APIClient) -> None:
    tools = [{"type": "function", "function": {"name": "brand_new", "description": "A new tool"}}]
    response = curator.post(f"{IMPORT}?format=openai&category=music&dry_run=true", tools, format="json")
    assert response.status_code == 200, response.content
    assert response.json()["dry_run"] is True and response.json()["created"] == ["brand_new"]
    assert not Tool.objects.filter(name="brand_new").exists()


def test_an_unknown_query_option_is_a_400_that_imports_nothing(curator: APIClient) -> None:
    tools = [{"type": "function", "function": {"name": "brand_new", "description": "A new tool"}}]
    response = curator.post(f"{IMPORT}?dryrun=true", tools, format="json")
    assert response.status_code == 400 and "dryrun" in response.json()["details"]
    assert not Tool.objects.filter(name="brand_new").exists()


def test_the_wrapper_still_works_and_keeps_its_options_in_the_body(curator: APIClient) -> None:
    document = {"format": "toolcatalog/v1", "tools": [{"name": "brand_new", "description": "A new tool"}]}
    response = curator.post(IMPORT, {"document": document, "dry_run": True}, format="json")
    assert response.status_code == 200 and response.json()["created"] == ["brand_new"]
    mixed = curator.post(f"{IMPORT}?dry_run=true", {"document": document}, format="json")
    assert mixed.status_code == 400 and mixed.json()["details"] == {"query": ["dry_run"]}
    assert not Tool.objects.filter(name="brand_new").exists()
