"""GET /api/v1/tools (and categories, toolsets) answers pages: API_PAGE_SIZE objects by default,
`?limit=` up to API_MAX_PAGE_SIZE, a `next` link; texts are capped at CATALOG_MAX_TEXT_CHARS."""
from __future__ import annotations

import pytest

from tests.support.catalog import api_client
from toolcatalog.models import Tool

pytestmark = pytest.mark.django_db


@pytest.fixture
def curator():
    return api_client(["catalog"], name="curator")


def test_pages_follow_next_links_to_the_end(curator, settings) -> None:
    settings.API_PAGE_SIZE = 4
    Tool.objects.bulk_create([Tool(name=f"t{i:02d}", description="d") for i in range(10)])
    page = curator.get("/api/v1/tools").json()
    assert page["count"] == 10 and len(page["results"]) == 4 and page["previous"] is None
    seen = [t["name"] for t in page["results"]]
    while page["next"]:
        page = curator.get(page["next"]).json()
        seen += [t["name"] for t in page["results"]]
    assert seen == [f"t{i:02d}" for i in range(10)]


def test_the_limit_parameter_is_capped(curator, settings) -> None:
    settings.API_MAX_PAGE_SIZE = 3
    Tool.objects.bulk_create([Tool(name=f"t{i}", description="d") for i in range(5)])
    assert len(curator.get("/api/v1/tools", {"limit": 1000}).json()["results"]) == 3
    assert [t["name"] for t in curator.get("/api/v1/tools", {"limit": 2, "offset": 3}).json()["results"]] == ["t3", "t4"]


def test_categories_and_toolsets_are_pages_too(curator) -> None:
    for path in ("/api/v1/categories", "/api/v1/toolsets"):
        assert set(curator.get(path).json()) == {"count", "next", "previous", "results"}


@pytest.mark.parametrize("field", ["description", "usage_hint"])
def test_long_texts_are_refused_at_every_door(curator, settings, field) -> None:
    settings.CATALOG_MAX_TEXT_CHARS = 1000
    body = {"name": "t1", "description": "d", field: "x" * 1001}
    response = curator.post("/api/v1/tools", body, format="json")
    assert response.status_code == 400 and "CATALOG_MAX_TEXT_CHARS" in response.json()["details"][field][0]
    report = curator.post("/api/v1/catalog/import", {"document": {"format": "toolcatalog/v1", "tools": [body]}},
                          format="json").json()
    assert report["counts"]["rejected"] == 1 and "CATALOG_MAX_TEXT_CHARS" in report["rejected"][0]["reason"]
    assert not Tool.objects.exists()
    body[field] = "x" * 1000
    assert curator.post("/api/v1/tools", body, format="json").status_code == 201
