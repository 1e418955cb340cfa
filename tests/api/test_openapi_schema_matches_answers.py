"""The published OpenAPI schema (/api/schema/) tells the truth: a real answer's status is declared
for its operation, its body matches the schema declared for that status, the fields the server adds
are declared, and an object read with GET can be sent back as the schema's request body."""
from __future__ import annotations

import json
from typing import Any

import jsonschema
import pytest
from rest_framework.test import APIClient

from tests.gateway.requests_shapes import openai_body
from tests.support.catalog import api_client, load_demo_catalog

pytestmark = pytest.mark.django_db

Schema = dict[str, Any]


@pytest.fixture
def openapi() -> Schema:
    response = APIClient().get("/api/schema/", HTTP_ACCEPT="application/json")
    assert response.status_code == 200
    return json.loads(response.content)


@pytest.fixture
def curator() -> APIClient:
    load_demo_catalog(embed=False)
    return api_client(["catalog", "route"], name="curator")


def resolved(openapi: Schema, node: Any, seen: tuple[str, ...] = ()) -> Any:
    """OpenAPI 3.0 -> JSON Schema: $refs inlined, `nullable` as a null alternative."""
    if isinstance(node, list):
        return [resolved(openapi, item, seen) for item in node]
    if not isinstance(node, dict):
        return node
    if "$ref" in node:
        target: Any = openapi
        for part in node["$ref"].removeprefix("#/").split("/"):
            target = target[part]
        return {} if node["$ref"] in seen else resolved(openapi, target, (*seen, node["$ref"]))
    out = {key: resolved(openapi, value, seen) for key, value in node.items() if key != "nullable"}
    return {"anyOf": [out, {"type": "null"}]} if node.get("nullable") else out


def operation(openapi: Schema, method: str, template: str) -> Schema:
    return openapi["paths"][template][method.lower()]


def declared_answer(openapi: Schema, method: str, template: str, status: int) -> Schema:
    responses = operation(openapi, method, template)["responses"]
    assert str(status) in responses, f"{method} {template} does not declare {status}: only {sorted(responses)}"
    content = responses[str(status)].get("content", {})
    assert "application/json" in content, f"{method} {template} declares no JSON body for {status}"
    return resolved(openapi, content["application/json"]["schema"])


def request_schema(openapi: Schema, method: str, template: str) -> Schema:
    body = operation(openapi, method, template).get("requestBody")
    assert body is not None, f"{method} {template} declares no request body"
    return resolved(openapi, body["content"]["application/json"]["schema"])


def assert_declared(openapi: Schema, method: str, template: str, response: Any) -> Any:
    answer = json.loads(response.content)
    jsonschema.validate(answer, declared_answer(openapi, method, template, response.status_code))
    return answer


def undeclared(schema: Schema, answer: dict) -> set[str]:
    """The answer's keys the schema does not name (a described nested object is an allOf of one)."""
    parts = [schema, *schema.get("allOf", [])]
    return set(answer) - {name for part in parts for name in part.get("properties", {})}


def test_a_missing_tool_is_a_declared_404(openapi: Schema, curator: APIClient) -> None:
    response = curator.get("/api/v1/tools/no_such_tool")
    assert response.status_code == 404
    assert assert_declared(openapi, "GET", "/api/v1/tools/{name}", response)["error"] == "not_found"


def test_feedback_refusals_are_declared(openapi: Schema, curator: APIClient) -> None:
    missing_field = curator.post("/api/v1/feedback", {"request_id": "nope"}, format="json")
    unknown_request = curator.post("/api/v1/feedback", {"request_id": "nope", "used_tools": []}, format="json")
    assert (missing_field.status_code, unknown_request.status_code) == (400, 404)
    assert_declared(openapi, "POST", "/api/v1/feedback", missing_field)
    assert_declared(openapi, "POST", "/api/v1/feedback", unknown_request)


def test_a_text_body_to_route_is_a_declared_415(openapi: Schema, curator: APIClient) -> None:
    response = curator.post("/api/v1/route", "weather in Paris", content_type="text/plain")
    assert response.status_code == 415
    assert_declared(openapi, "POST", "/api/v1/route", response)


def test_the_filter_declares_the_llm_body_it_takes_and_gives(openapi: Schema, curator: APIClient) -> None:
    body = openai_body("send an email to Ana")
    jsonschema.validate(body, request_schema(openapi, "POST", "/api/v1/filter"))
    response = curator.post("/api/v1/filter", body, format="json")
    assert response.status_code == 200
    assert assert_declared(openapi, "POST", "/api/v1/filter", response)["model"] == "gpt-4o"
    bad = curator.post("/api/v1/filter?foo=1", body, format="json")
    assert bad.status_code == 400
    assert_declared(openapi, "POST", "/api/v1/filter", bad)


def test_a_tool_read_with_get_can_be_put_back(openapi: Schema, curator: APIClient) -> None:
    read = curator.get("/api/v1/tools/send_email")
    assert_declared(openapi, "GET", "/api/v1/tools/{name}", read)
    writable = request_schema(openapi, "PUT", "/api/v1/tools/{name}")
    # What a client generated from the schema sends: the fetched object's writable fields.
    body = {key: value for key, value in read.json().items()
            if key in writable["properties"] and not writable["properties"][key].get("readOnly")}
    jsonschema.validate(body, writable)
    written = curator.put("/api/v1/tools/send_email", body, format="json")
    assert written.status_code == 200, written.content
    assert assert_declared(openapi, "PUT", "/api/v1/tools/{name}", written) == read.json() | {
        "updated_at": written.json()["updated_at"]}


def test_fields_always_in_a_tool_are_required_in_its_answer(openapi: Schema, curator: APIClient) -> None:
    answer = curator.get("/api/v1/tools/send_email").json()
    assert set(answer) <= set(declared_answer(openapi, "GET", "/api/v1/tools/{name}", 200)["required"])


def test_the_fields_route_adds_for_explain_and_sessions_are_declared(openapi: Schema, curator: APIClient) -> None:
    response = curator.post("/api/v1/route", {"query": "send an email to Ana", "explain": True, "session_id": "s1",
                                              "strategy": "hierarchical"}, format="json")
    assert response.status_code == 200
    answer = assert_declared(openapi, "POST", "/api/v1/route", response)
    schema = declared_answer(openapi, "POST", "/api/v1/route", 200)
    assert undeclared(schema, answer) == set()
    assert undeclared(schema["properties"]["session"], answer["session"]) == set()
    assert undeclared(schema["properties"]["strategy"], answer["strategy"]) == set()
    match_schema = schema["properties"]["matches"]["items"]
    assert answer["matches"] and all(undeclared(match_schema, match) == set() for match in answer["matches"])


def test_the_tool_search_session_field_is_declared(openapi: Schema, curator: APIClient) -> None:
    response = curator.post("/api/v1/tool-search", {"query": "send an email", "session_id": "s2"}, format="json")
    assert response.status_code == 200
    answer = assert_declared(openapi, "POST", "/api/v1/tool-search", response)
    assert "activeTools" in answer
    assert undeclared(declared_answer(openapi, "POST", "/api/v1/tool-search", 200), answer) == set()


def test_the_import_report_fields_are_declared(openapi: Schema, curator: APIClient) -> None:
    document = {"format": "toolcatalog/v1", "tools": [{"name": "ok_one", "description": "fine"}]}
    response = curator.post("/api/v1/catalog/import", {"document": document, "dry_run": True}, format="json")
    assert response.status_code == 200, response.content
    answer = assert_declared(openapi, "POST", "/api/v1/catalog/import", response)
    schema = declared_answer(openapi, "POST", "/api/v1/catalog/import", 200)
    assert undeclared(schema, answer) == set()
    assert undeclared(schema["properties"]["counts"], answer["counts"]) == set()
