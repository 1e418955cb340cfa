"""A small import document cannot cost unbounded work: YAML aliases ("billion laughs"), the size
once expanded, $ref fan-out and nesting are counted while they expand and refused past their
limits (413 for size, 400 for depth), naming the limit, with nothing stored, through every door."""
from __future__ import annotations

import io
import json
import time

import pytest
from django.core.management import CommandError, call_command

from bench.hardening import billion_laughs, ref_fan_out
from shared.json_input import depth_of
from tests.support.catalog import api_client
from toolcatalog.models import Category, Tool

pytestmark = pytest.mark.django_db


@pytest.fixture
def curator():
    return api_client(["catalog"], name="curator")


def test_billion_laughs_is_refused_before_it_expands(curator) -> None:
    started = time.perf_counter()
    response = curator.post("/api/v1/catalog/import", {"document": billion_laughs(), "dry_run": True}, format="json")
    assert time.perf_counter() - started < 5  # it took minutes before: refused while composing
    assert response.status_code == 413, response.content
    body = response.json()
    assert body["error"] == "document_too_large"
    assert body["details"] == {"limit": "IMPORT_MAX_NODES", "allowed": 1_000_000}
    assert "IMPORT_MAX_NODES" in body["message"]


def test_alias_count_has_its_own_limit(curator, settings) -> None:
    settings.IMPORT_MAX_YAML_ALIASES = 5
    response = curator.post("/api/v1/catalog/import", {"document": billion_laughs(levels=1, fan_out=6)}, format="json")
    assert response.status_code == 413
    assert response.json()["details"]["limit"] == "IMPORT_MAX_YAML_ALIASES"


def test_a_few_aliases_still_import(curator) -> None:
    document = billion_laughs(levels=2, fan_out=2).replace("summary: *x2", "summary: fine, description: ok")
    response = curator.post("/api/v1/catalog/import", {"document": document}, format="json")
    assert response.status_code == 200, response.content
    assert Tool.objects.filter(name="a").exists()


def test_recursive_aliases_are_refused(curator) -> None:
    response = curator.post("/api/v1/catalog/import", {"document": "a: &a\n  b: *a\n"}, format="json")
    assert response.status_code == 400
    assert "recursive" in response.json()["message"]


def test_ref_fan_out_is_refused_past_the_expansion_limit(curator) -> None:
    started = time.perf_counter()
    response = curator.post("/api/v1/catalog/import", {"document": ref_fan_out(16), "dry_run": True}, format="json")
    assert time.perf_counter() - started < 10  # 16 levels got no answer in 120 s before
    assert response.status_code == 413, response.content
    assert response.json()["details"] == {"limit": "IMPORT_MAX_REF_EXPANSIONS", "allowed": 10_000}
    assert not Tool.objects.exists()


def test_ref_fan_out_within_the_limit_imports(curator) -> None:
    response = curator.post("/api/v1/catalog/import", {"document": ref_fan_out(5)}, format="json")
    assert response.status_code == 200, response.content
    assert Tool.objects.get(name="make_a").parameters["properties"]["a"]["properties"]["b"]["type"] == "object"


def test_expanded_size_is_counted_for_refs_too(curator, settings) -> None:
    settings.IMPORT_MAX_NODES = 200
    response = curator.post("/api/v1/catalog/import", {"document": ref_fan_out(8)}, format="json")
    assert response.status_code == 413
    assert response.json()["details"]["limit"] == "IMPORT_MAX_NODES"


@pytest.mark.parametrize("document", ["[" * 100 + "]" * 100, "- " * 100 + "x"])
def test_depth_of_a_text_document_is_limited(curator, document) -> None:
    response = curator.post("/api/v1/catalog/import", {"document": document}, format="json")
    assert response.status_code == 400
    assert response.json()["error"] == "document_too_deep"
    assert response.json()["details"] == {"limit": "IMPORT_MAX_DEPTH", "allowed": 64}


def test_the_command_and_the_admin_page_apply_the_same_limits(tmp_path, admin_client_logged_in) -> None:
    path = tmp_path / "lol.yaml"
    path.write_text(billion_laughs())
    with pytest.raises(CommandError, match="IMPORT_MAX_NODES"):
        call_command("import_catalog", str(path), stdout=io.StringIO())
    page = admin_client_logged_in.post("/admin/catalog-import/", {"text": json.dumps(ref_fan_out(16)),
                                                                   "action": "import"}).content.decode()
    assert "Nothing was imported" in page and "IMPORT_MAX_REF_EXPANSIONS" in page
    assert not Tool.objects.exists() and not Category.objects.exists()


def deep_object(wrappings: int) -> dict:
    """A toolcatalog/v1 document whose one tool's parameters hold an object in an object `wrappings` times."""
    schema: dict = {"type": "string"}
    for _ in range(wrappings):
        schema = {"type": "object", "properties": {"inner": schema}}
    return {"format": "toolcatalog/v1", "tools": [{"name": "deep", "description": "Deep parameters.",
                                                   "parameters": {"type": "object", "properties": {"p": schema}}}]}


def test_a_document_sent_as_an_object_may_nest_as_deep_as_one_sent_as_text(curator, settings) -> None:
    body = {"document": deep_object(25)}
    assert settings.API_MAX_JSON_DEPTH < depth_of(body, 100) <= settings.IMPORT_MAX_DEPTH + 1
    response = curator.post("/api/v1/catalog/import", body, format="json")
    assert response.status_code == 200, response.content
    assert response.json()["created"] == ["deep"]
    too_deep = curator.post("/api/v1/catalog/import", {"document": deep_object(40)}, format="json")
    assert too_deep.status_code == 400 and too_deep.json()["error"] == "json_too_deep"
