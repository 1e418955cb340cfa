"""Booleans and strings must be JSON booleans and strings: `core: "yes"` is not true (the tool would
join every answer), `enabled: "no"` is not false, `description: 5` is not "5"."""
from __future__ import annotations

import pytest

from tests.support.catalog import api_client
from toolcatalog.models import Category, Tool

pytestmark = pytest.mark.django_db


@pytest.fixture
def curator():
    return api_client(["catalog", "route"], name="curator")


@pytest.mark.parametrize("field, value", [
    ("core", "yes"), ("core", 1), ("enabled", "no"), ("enabled", 0), ("description", 5), ("name", 5),
    ("usage_hint", ["a"]), ("tags", [5]), ("source", True),
])
def test_a_tool_with_a_wrong_type_is_refused_naming_the_field(curator, field, value) -> None:
    body = {"name": "t1", "description": "d", field: value}
    response = curator.post("/api/v1/tools", body, format="json")
    assert response.status_code == 400, response.content
    assert field in response.json()["details"]
    assert not Tool.objects.exists()


def test_a_patch_is_checked_the_same_way(curator) -> None:
    curator.post("/api/v1/tools", {"name": "t1", "description": "d"}, format="json")
    response = curator.patch("/api/v1/tools/t1", {"core": "yes"}, format="json")
    assert response.status_code == 400 and "core" in response.json()["details"]
    assert Tool.objects.get(name="t1").core is False


@pytest.mark.parametrize("body", [{"name": "c", "enabled": "no"}, {"name": "c", "description": 5},
                                  {"name": "c", "keywords": [1]}])
def test_categories_too(curator, body) -> None:
    assert curator.post("/api/v1/categories", body, format="json").status_code == 400
    assert not Category.objects.exists()


@pytest.mark.parametrize("body, field", [
    ({"document": [], "dry_run": "yes"}, "dry_run"),
    ({"document": [], "server_name": 5}, "server_name"),
])
def test_import_options_too(curator, body, field) -> None:
    response = curator.post("/api/v1/catalog/import", body, format="json")
    assert response.status_code == 400 and field in response.json()["details"]


@pytest.mark.parametrize("body, field", [
    ({"request_id": 5, "used_tools": []}, "request_id"),
    ({"request_id": "r", "used_tools": [5]}, "used_tools"),
    ({"request_id": "r", "used_tools": [], "success": "yes"}, "success"),
])
def test_feedback_too(curator, body, field) -> None:
    response = curator.post("/api/v1/feedback", body, format="json")
    assert response.status_code == 400 and field in response.json()["details"]


def test_real_booleans_and_strings_still_work(curator) -> None:
    response = curator.post("/api/v1/tools", {"name": "t1", "description": "d", "core": True, "enabled": False,
                                              "tags": ["x"]}, format="json")
    assert response.status_code == 201
    assert Tool.objects.filter(name="t1", core=True, enabled=False).exists()
