"""Catalog management through the API (scope `catalog`)."""
import pytest

from tests.support.catalog import api_client, demo_document
from toolcatalog.models import Category, Tool, Toolset

pytestmark = pytest.mark.django_db


@pytest.fixture
def curator():
    return api_client(["catalog"], name="curator")


def test_create_read_update_delete_a_tool(curator) -> None:
    Category.objects.create(name="music")
    created = curator.post("/api/v1/tools", {
        "name": "play_music", "description": "Play a song", "category": "music",
        "parameters": {"type": "object", "properties": {"query": {"type": "string"}}},
    }, format="json")
    assert created.status_code == 201, created.content
    assert curator.get("/api/v1/tools/play_music").json()["category"] == "music"
    updated = curator.patch("/api/v1/tools/play_music", {"usage_hint": "Returns a track id."}, format="json")
    assert updated.status_code == 200 and Tool.objects.get(name="play_music").usage_hint == "Returns a track id."
    assert curator.delete("/api/v1/tools/play_music").status_code == 204
    assert not Tool.objects.exists()


def test_dotted_names_work_in_urls(curator) -> None:
    curator.post("/api/v1/tools", {"name": "files.read_file", "description": "Read a file"}, format="json")
    assert curator.get("/api/v1/tools/files.read_file").status_code == 200


def test_invalid_schema_is_a_400_naming_tool_and_fault(curator) -> None:
    response = curator.post("/api/v1/tools", {"name": "broken", "description": "Bad",
                                              "parameters": {"type": "object", "properties": {"q": {"type": "strng"}}}},
                            format="json")
    assert response.status_code == 400
    assert "'broken'" in response.json()["message"] and "parameters" in response.json()["details"]
    assert not Tool.objects.exists()


def test_unknown_category_and_unknown_fields_are_400(curator) -> None:
    response = curator.post("/api/v1/tools", {"name": "t", "description": "d", "category": "ghost"}, format="json")
    assert response.status_code == 400 and "category" in response.json()["details"]
    response = curator.post("/api/v1/tools", {"name": "t", "description": "d", "colour": "red"}, format="json")
    assert response.status_code == 400 and "colour" in response.json()["details"]


def test_duplicate_name_is_400(curator) -> None:
    curator.post("/api/v1/tools", {"name": "t", "description": "d"}, format="json")
    response = curator.post("/api/v1/tools", {"name": "t", "description": "again"}, format="json")
    assert response.status_code == 400 and "name" in response.json()["details"]


def test_category_cycle_is_400(curator) -> None:
    curator.post("/api/v1/categories", {"name": "cms"}, format="json")
    curator.post("/api/v1/categories", {"name": "pages", "parent": "cms"}, format="json")
    response = curator.patch("/api/v1/categories/cms", {"parent": "pages"}, format="json")
    assert response.status_code == 400 and "cycle" in response.json()["message"]


def test_toolsets_by_name(curator) -> None:
    curator.post("/api/v1/tools", {"name": "a", "description": "A"}, format="json")
    response = curator.post("/api/v1/toolsets", {"name": "agent-1", "tools": ["a"]}, format="json")
    assert response.status_code == 201, response.content
    assert list(Toolset.objects.get(name="agent-1").tools.values_list("name", flat=True)) == ["a"]


def test_import_reports_and_export_round_trips(curator) -> None:
    response = curator.post("/api/v1/catalog/import", {"document": demo_document()}, format="json")
    assert response.status_code == 200, response.content
    report = response.json()
    assert report["counts"]["created"] == len(demo_document()["tools"]) + len(demo_document()["categories"])
    exported = curator.get("/api/v1/catalog/export").json()
    assert {t["name"] for t in exported["tools"]} == {t["name"] for t in demo_document()["tools"]}
    again = curator.post("/api/v1/catalog/import", {"document": exported}, format="json").json()
    assert again["counts"]["created"] == 0 and again["counts"]["updated"] == 0


def test_import_of_an_openai_tool_list(curator) -> None:
    tools = [{"type": "function", "function": {"name": "get_weather", "description": "Weather for a city",
                                                "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}}]
    report = curator.post("/api/v1/catalog/import", {"document": tools}, format="json").json()
    assert report["format"] == "openai" and report["counts"]["created"] == 1
    assert Tool.objects.filter(name="get_weather").exists()


def test_import_of_something_else_is_rejected_whole(curator) -> None:
    response = curator.post("/api/v1/catalog/import", {"document": {"hello": "world"}}, format="json")
    assert response.status_code == 400 and response.json()["error"] == "invalid_catalog"
    assert not Tool.objects.exists()


@pytest.mark.parametrize("fmt", ["openai", "anthropic", "mcp"])
def test_export_in_provider_formats(curator, fmt) -> None:
    curator.post("/api/v1/tools", {"name": "files.read_file", "description": "Read a file"}, format="json")
    response = curator.get("/api/v1/catalog/export", {"format": fmt})
    assert response.status_code == 200 and response.json()
