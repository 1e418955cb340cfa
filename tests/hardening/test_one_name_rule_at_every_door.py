"""Names are checked once, at the door, by the rule the exports use (engine/names.py): a tool named
"-", "." or ".." is refused by the API, the admin, imports and the command, so no export can fail
afterwards."""
from __future__ import annotations

import io
import json

import pytest
from django.core.management import call_command

from engine import is_catalog_name
from tests.support.catalog import api_client
from toolcatalog.models import Category, Tool, Toolset

pytestmark = pytest.mark.django_db

BAD_NAMES = ["-", ".", "..", "_", "-.-", "a b", "é", "x" * 129]


@pytest.fixture
def curator():
    return api_client(["catalog"], name="curator")


def test_the_rule() -> None:
    assert all(not is_catalog_name(n) for n in BAD_NAMES)
    assert all(is_catalog_name(n) for n in ["a", "files.read_file", "_private", "-x", "1", "a-b_c.d"])


@pytest.mark.parametrize("name", BAD_NAMES)
def test_the_api_refuses_names_the_exports_cannot_represent(curator, name) -> None:
    for path, body in [("/api/v1/tools", {"name": name, "description": "d"}),
                       ("/api/v1/categories", {"name": name}), ("/api/v1/toolsets", {"name": name})]:
        response = curator.post(path, body, format="json")
        assert response.status_code == 400, (path, response.content)
        assert "name" in response.json()["details"]
    assert not Tool.objects.exists() and not Category.objects.exists() and not Toolset.objects.exists()


def test_renaming_through_the_api_is_checked_too(curator) -> None:
    curator.post("/api/v1/tools", {"name": "good", "description": "d"}, format="json")
    assert curator.patch("/api/v1/tools/good", {"name": ".."}, format="json").status_code == 400
    assert Tool.objects.filter(name="good").exists()


def test_the_admin_refuses_them(admin_client_logged_in) -> None:
    response = admin_client_logged_in.post("/admin/toolcatalog/tool/add/", {
        "name": "..", "description": "d", "parameters": json.dumps({"type": "object", "properties": {}}),
        "enabled": "on", "tags": "", "hypothetical_queries-TOTAL_FORMS": "0",
        "hypothetical_queries-INITIAL_FORMS": "0"})
    assert response.status_code == 200 and "at least one letter or digit" in response.content.decode()
    assert not Tool.objects.exists()


def test_imports_and_the_command_reject_them_with_a_reason(curator, tmp_path) -> None:
    document = {"format": "toolcatalog/v1", "tools": [{"name": n, "description": "d"} for n in ["-", ".", "..", "ok"]]}
    report = curator.post("/api/v1/catalog/import", {"document": document}, format="json").json()
    assert report["created"] == ["ok"] and report["counts"]["rejected"] == 3
    path = tmp_path / "c.json"
    path.write_text(json.dumps({**document, "tools": document["tools"][:3]}))
    err = io.StringIO()
    call_command("import_catalog", str(path), stdout=io.StringIO(), stderr=err)
    assert err.getvalue().count("rejected") == 3
    assert list(Tool.objects.values_list("name", flat=True)) == ["ok"]


def test_a_parameters_schema_is_checked_in_its_own_dialect_as_the_exports_check_it(curator) -> None:
    draft4 = {"$schema": "http://json-schema.org/draft-04/schema#", "type": "object",
              "properties": {"n": {"type": "number", "exclusiveMinimum": 0}}}  # a number: 2020-12, not draft-04
    response = curator.post("/api/v1/tools", {"name": "d4", "description": "d", "parameters": draft4}, format="json")
    assert response.status_code == 400 and "parameters" in response.json()["details"]


@pytest.mark.parametrize("fmt", ["toolcatalog/v1", "openai", "anthropic", "mcp"])
def test_every_export_answers_after_all_those_attempts(curator, fmt) -> None:
    for name in BAD_NAMES + ["fine.tool"]:
        curator.post("/api/v1/tools", {"name": name, "description": "d"}, format="json")
    response = curator.get("/api/v1/catalog/export", {"format": fmt})
    assert response.status_code == 200
    assert "fine" in json.dumps(response.json())


def test_a_row_stored_before_the_rule_makes_the_export_a_409_not_a_500(curator) -> None:
    Tool.objects.create(name="..", description="d")  # bypasses validation, as an old database row would
    response = curator.get("/api/v1/catalog/export", {"format": "openai"})
    assert response.status_code == 409
    assert response.json()["error"] == "catalog_not_exportable"
