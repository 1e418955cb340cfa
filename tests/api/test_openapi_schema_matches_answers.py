"""The published OpenAPI schema (/api/schema/) tells the truth: a real answer's status is declared
for its operation, its body matches the schema declared for that status, the fields the server adds
are declared, and an object read with GET can be sent back as the schema's request body. Request
bodies the server refuses (an unknown field, a bad name) are invalid under the declared request schema;
429s declare Retry-After; each export format has its own declared shape; `?format=json` gives JSON."""
from __future__ import annotations

import json
from typing import Any

import jsonschema
import pytest
import yaml
from rest_framework.test import APIClient

from api.models import ApiKey
from tests.gateway.requests_shapes import openai_body
from tests.support.catalog import api_client, load_demo_catalog
from toolcatalog.interchange import EXPORT_FORMATS

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


def refused_by(schema: Schema, body: Any) -> bool:
    try:
        jsonschema.validate(body, schema)
    except jsonschema.ValidationError:
        return True
    return False


TOOL = {"name": "sweep_tool", "description": "Does a thing."}
# (method, path as sent, path template, a body the server takes): adding a field the server does not
# know must make it invalid under the declared request schema, as the server refuses it.
STRICT_BODIES = [
    ("POST", "/api/v1/route", "/api/v1/route", {"query": "send an email"}),
    ("POST", "/api/v1/tool-search", "/api/v1/tool-search", {"query": "send an email"}),
    ("POST", "/api/v1/feedback", "/api/v1/feedback", {"request_id": "nope", "used_tools": []}),
    ("POST", "/api/v1/tools", "/api/v1/tools", TOOL),
    ("PATCH", "/api/v1/tools/send_email", "/api/v1/tools/{name}", {"enabled": True}),
    ("POST", "/api/v1/categories", "/api/v1/categories", {"name": "sweep_cat"}),
    ("PUT", "/api/v1/categories/music", "/api/v1/categories/{name}", {"name": "music"}),
    ("POST", "/api/v1/toolsets", "/api/v1/toolsets", {"name": "sweep_ts"}),
    ("POST", "/api/v1/catalog/import", "/api/v1/catalog/import", {"document": {"tools": []}, "dry_run": True}),
]


@pytest.mark.parametrize(("method", "path", "template", "body"), STRICT_BODIES, ids=[f"{m} {t}" for m, _, t, _ in STRICT_BODIES])
def test_an_unknown_request_field_is_invalid_under_the_declared_schema(
        openapi: Schema, curator: APIClient, method: str, path: str, template: str, body: dict) -> None:
    schema = request_schema(openapi, method, template)
    assert not refused_by(schema, body)
    assert refused_by(schema, body | {"limt": 3})
    answer = curator.generic(method, path, json.dumps(body | {"limt": 3}), content_type="application/json")
    assert answer.status_code == 400
    assert assert_declared(openapi, method, template, answer)["details"]["limt"]


@pytest.mark.parametrize("name", ["bad name!", "-", "..", "_.-", "caf\u00e9", "a" * 129, ""])
def test_a_name_the_server_refuses_is_invalid_under_the_declared_schema(
        openapi: Schema, curator: APIClient, name: str) -> None:
    for template in ("/api/v1/tools", "/api/v1/categories", "/api/v1/toolsets"):
        body = (TOOL if template.endswith("tools") else {}) | {"name": name}
        assert refused_by(request_schema(openapi, "POST", template), body), template
        assert curator.post(template, body, format="json").status_code == 400, template


@pytest.mark.parametrize("name", ["a", "_a", "mcp.server-1.tool_x", "9", "." + "a" * 127])
def test_a_name_the_server_takes_is_valid_under_the_declared_schema(
        openapi: Schema, curator: APIClient, name: str) -> None:
    for template in ("/api/v1/tools", "/api/v1/categories", "/api/v1/toolsets"):
        body = (TOOL if template.endswith("tools") else {}) | {"name": name}
        assert not refused_by(request_schema(openapi, "POST", template), body), template
        answer = curator.post(template, body, format="json")
        assert answer.status_code == 201, answer.content


@pytest.mark.parametrize("parameters", ["x", None, [], 3])
def test_tool_parameters_that_are_no_object_are_invalid_under_the_declared_schema(
        openapi: Schema, curator: APIClient, parameters: Any) -> None:
    body = TOOL | {"parameters": parameters}
    assert refused_by(request_schema(openapi, "POST", "/api/v1/tools"), body)
    assert curator.post("/api/v1/tools", body, format="json").status_code == 400


def test_a_rate_limited_answer_declares_its_retry_after_header(openapi: Schema) -> None:
    client = api_client(["route"], name="slow-lane")
    ApiKey.objects.filter(name="slow-lane").update(rate_per_minute=1)
    assert client.post("/api/v1/route", {"query": "weather"}, format="json").status_code == 200
    refused = client.post("/api/v1/route", {"query": "weather"}, format="json")
    assert refused.status_code == 429
    header = operation(openapi, "POST", "/api/v1/route")["responses"]["429"]["headers"]["Retry-After"]
    jsonschema.validate(int(refused["Retry-After"]), header["schema"])


@pytest.mark.parametrize(("query", "media_type", "load"), [
    ("?format=json", "application/vnd.oai.openapi+json", json.loads),
    ("?format=yaml", "application/vnd.oai.openapi", yaml.safe_load),
    ("", "application/vnd.oai.openapi", yaml.safe_load),
])
def test_the_schema_comes_in_the_format_asked_for(query: str, media_type: str, load: Any) -> None:
    response = APIClient().get(f"/api/schema/{query}")
    assert response.status_code == 200
    assert response["Content-Type"].split(";")[0] == media_type
    assert load(response.content)["openapi"].startswith("3.0")


def test_an_unknown_schema_format_is_a_400_naming_the_formats() -> None:
    response = APIClient().get("/api/schema/?format=xml")
    assert (response.status_code, response["Content-Type"]) == (400, "application/json")
    assert response.json()["details"] == {"format": "xml", "allowed": ["json", "yaml"]}


@pytest.mark.parametrize("fmt", EXPORT_FORMATS)
def test_each_export_format_matches_its_own_declared_shape(openapi: Schema, curator: APIClient, fmt: str) -> None:
    response = curator.get("/api/v1/catalog/export", {"format": fmt})
    assert response.status_code == 200
    shapes = declared_answer(openapi, "GET", "/api/v1/catalog/export", 200)["anyOf"]
    own = {shape["title"]: shape for shape in shapes}[fmt]  # each alternative is titled by its format
    jsonschema.validate(response.json(), own)
