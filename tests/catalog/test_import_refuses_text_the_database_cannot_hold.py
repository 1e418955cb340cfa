"""A NUL or half a UTF-16 pair in imported or written text is a clear refusal, never a 500, and
never costs the good entries beside it."""
from __future__ import annotations

import pytest

from tests.support.catalog import api_client
from toolcatalog import services
from toolcatalog.models import Tool

pytestmark = pytest.mark.django_db
GOOD = {"name": "good_tool", "description": "Fine."}


@pytest.mark.parametrize("bad,where", [
    ({"name": "bad_tool", "description": "bad\u0000desc"}, "description"),
    ({"name": "bad_tool", "description": "x", "usage_hint": "\u0000"}, "usage_hint"),
    ({"name": "bad_tool", "description": "x", "hypothetical_queries": ["play\u0000it"]}, "hypothetical_queries/0"),
    ({"name": "bad_tool", "description": "x",
      "parameters": {"type": "object", "properties": {"q": {"type": "string", "description": "a\u0000b"}}}},
     "parameters/properties/q/description"),
    ({"name": "bad_tool", "description": "x", "tags": ["t\u0000"]}, "tags/0"),
])
def test_an_entry_with_a_nul_is_rejected_and_the_rest_imported(bad, where) -> None:
    client = api_client(["catalog"], name="importer")
    document = {"format": "toolcatalog/v1", "tools": [bad, GOOD]}
    response = client.post("/api/v1/catalog/import", {"document": document}, format="json")
    assert response.status_code == 200, response.content
    report = response.json()
    assert report["created"] == ["good_tool"]
    [rejected] = report["rejected"]
    assert rejected["name"] == "bad_tool" and f"{where} contains a NUL character" in rejected["reason"]
    assert list(Tool.objects.values_list("name", flat=True)) == ["good_tool"]


def test_a_nul_in_a_category_rejects_that_category() -> None:
    report = services.import_any({"format": "toolcatalog/v1", "categories": [
        {"name": "bad", "description": "x\u0000"}, {"name": "fine", "keywords": ["ok"]}], "tools": []})
    assert report["created"] == ["category:fine"]
    assert "description contains a NUL character" in report["rejected"][0]["reason"]


def test_an_unpaired_surrogate_in_a_body_is_a_400_naming_it() -> None:
    client = api_client(["catalog"], name="importer")
    body = '{"document": {"format": "toolcatalog/v1", "tools": [{"name": "a", "description": "x\\ud800"}]}}'
    response = client.post("/api/v1/catalog/import", body, content_type="application/json")
    assert response.status_code == 400
    assert "unpaired surrogate (U+D800)" in response.json()["message"]
    assert not Tool.objects.exists()


@pytest.mark.parametrize("parameters,fault", [
    ({"type": "object", "description": "x\u0000y"}, "NUL"),
    ({"type": "object", "$schema": 5}, "$schema"),
    ({"type": "object", "$schema": []}, "$schema"),
])
def test_a_tool_written_through_the_api_with_such_parameters_is_a_400(parameters, fault) -> None:
    client = api_client(["catalog"], name="writer")
    response = client.post("/api/v1/tools", {"name": "sweep_tool", "description": "x", "parameters": parameters},
                           format="json")
    assert response.status_code == 400, response.content
    assert fault in response.json()["message"]
    assert not Tool.objects.exists()
