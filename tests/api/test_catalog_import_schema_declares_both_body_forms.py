"""The published schema of POST /api/v1/catalog/import declares both bodies the server takes: the
`{"document": ...}` wrapper with its options, and the document itself with its options in the query.
A body of either form that is valid under the schema is imported; a wrapper with a field it does not
have is invalid under the schema, as the server refuses it."""
from __future__ import annotations

import json
from typing import Any

import jsonschema
import pytest
from rest_framework.test import APIClient

from tests.api.test_openapi_schema_matches_answers import Schema, operation, refused_by, request_schema
from tests.support.catalog import api_client, load_demo_catalog
from toolcatalog.models import Tool

pytestmark = pytest.mark.django_db

IMPORT = "/api/v1/catalog/import"
V1_DOCUMENT = {"format": "toolcatalog/v1", "tools": [{"name": "brand_new", "description": "A new tool"}]}
# (query, body): every form SPEC leads a user to send, each imported as a dry run.
BODIES: list[tuple[str, Any]] = [
    ("", {"document": V1_DOCUMENT, "dry_run": True}),
    ("", {"document": [{"name": "brand_new", "description": "A new tool", "input_schema": {"type": "object"}}],
          "format": "anthropic", "category": "music", "dry_run": True}),
    ("?dry_run=true", V1_DOCUMENT),
    ("?format=openai&category=music&dry_run=true",
     [{"type": "function", "function": {"name": "brand_new", "description": "A new tool"}}]),
    ("?dry_run=true", [{"name": "brand_new", "description": "A new tool", "input_schema": {"type": "object"}}]),
    ("?server_name=files&dry_run=true",
     {"tools": [{"name": "brand_new", "description": "A new tool", "inputSchema": {"type": "object"}}]}),
    ("?dry_run=true", "format: toolcatalog/v1\ntools:\n  - name: brand_new\n    description: A new tool\n"),
]


@pytest.fixture
def openapi() -> Schema:
    response = APIClient().get("/api/schema/?format=json")
    assert response.status_code == 200
    return json.loads(response.content)


@pytest.fixture
def curator() -> APIClient:
    load_demo_catalog(embed=False)
    return api_client(["catalog"], name="curator")


def valid(schema: Schema, body: Any) -> bool:
    return not refused_by(schema, body)


def test_the_schema_declares_the_wrapper_and_the_document_itself(openapi: Schema) -> None:
    forms = request_schema(openapi, "POST", IMPORT)["oneOf"]
    assert len(forms) == 2
    wrapper, document = forms
    assert wrapper["required"] == ["document"] and wrapper["additionalProperties"] is False
    assert valid(document, V1_DOCUMENT) and valid(document, []) and not valid(document, {"document": V1_DOCUMENT})
    assert valid(document, "tools: []")  # the document as JSON or YAML text
    assert operation(openapi, "POST", IMPORT)["requestBody"]["required"] is True
    declared = {parameter["name"] for parameter in operation(openapi, "POST", IMPORT)["parameters"]}
    assert {"format", "server_name", "category", "dry_run"} <= declared


@pytest.mark.parametrize(("query", "body"), BODIES, ids=[f"{q or 'wrapper'} {type(b).__name__}" for q, b in BODIES])
def test_a_body_valid_under_the_schema_is_imported(openapi: Schema, curator: APIClient, query: str, body: Any) -> None:
    jsonschema.validate(body, request_schema(openapi, "POST", IMPORT))
    response = curator.post(f"{IMPORT}{query}", body, format="json")
    assert response.status_code == 200, response.content
    assert response.json()["dry_run"] is True and response.json()["created"] == ["brand_new"]
    assert not Tool.objects.filter(name="brand_new").exists()


def test_the_exports_own_output_is_valid_under_the_schema(openapi: Schema, curator: APIClient) -> None:
    exported = curator.get("/api/v1/catalog/export").json()
    jsonschema.validate(exported, request_schema(openapi, "POST", IMPORT))
    response = curator.post(f"{IMPORT}?dry_run=true", exported, format="json")
    assert response.status_code == 200, response.content
    assert response.json()["counts"]["unchanged"] > 0


def test_a_wrapper_with_an_unknown_field_is_invalid_under_the_schema_and_refused(
        openapi: Schema, curator: APIClient) -> None:
    body = {"document": V1_DOCUMENT, "dryrun": True}
    assert not valid(request_schema(openapi, "POST", IMPORT), body)
    response = curator.post(IMPORT, body, format="json")
    assert response.status_code == 400 and "dryrun" in response.json()["details"]
    assert not Tool.objects.filter(name="brand_new").exists()
