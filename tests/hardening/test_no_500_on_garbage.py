"""Garbage in a body is a 400 JSON error naming what is wrong on every endpoint, never a 500:
integers past Python's 4,300-digit limit, non-finite numbers, JSONPaths the library cannot evaluate."""
from __future__ import annotations

import json
from urllib.parse import quote

import pytest
from rest_framework.test import APIClient

from tests.gateway.requests_shapes import openai_body, post_filter
from tests.support.catalog import api_client
from toolcatalog.models import Tool
from usage import services as usage
from usage.models import RequestLog

pytestmark = pytest.mark.django_db

BIG = "9" * 5000  # past sys.get_int_max_str_digits() (4,300)
ENDPOINTS = ["/api/v1/route", "/api/v1/tool-search", "/api/v1/feedback", "/api/v1/tools", "/api/v1/catalog/import",
             "/api/v1/filter", "/v1/chat/completions", "/v1/responses", "/v1/messages"]


@pytest.fixture
def client() -> APIClient:
    return api_client(["route", "catalog"], name="garbage")


def post_raw(client: APIClient, path: str, raw: str):
    return client.generic("POST", path, raw, content_type="application/json")


@pytest.mark.parametrize("path", ENDPOINTS)
def test_an_integer_of_5000_digits_is_a_400_everywhere(client, path) -> None:
    response = post_raw(client, path, f'{{"query": "weather", "limit": {BIG}, "document": {BIG}, "messages": '
                                      f'[{{"role": "user", "content": "hi"}}], "tools": [], "request_id": {BIG}}}')
    assert response.status_code == 400, response.content
    assert response.json()["error"] == "number_too_long"
    assert "4300 digits" in response.json()["message"]


@pytest.mark.parametrize("path", ENDPOINTS)
@pytest.mark.parametrize("number", ["1e999", "NaN", "-Infinity"])
def test_non_finite_numbers_are_a_400_everywhere(client, path, number) -> None:
    response = post_raw(client, path, f'{{"query": "weather", "limit": {number}, "tools": []}}')
    assert response.status_code == 400, response.content
    assert response.json()["error"] == "invalid_json"


def test_a_tool_with_an_infinite_default_is_refused_not_a_database_error(client) -> None:
    raw = ('{"name": "t1", "description": "d", "parameters": {"type": "object", "properties": '
           '{"n": {"type": "number", "default": 1e999}}}}')
    assert post_raw(client, "/api/v1/tools", raw).status_code == 400
    assert not Tool.objects.exists()


@pytest.mark.parametrize("document", [
    "[" * 1000 + "]" * 1000,
    '{"a": ' * 600 + "1" + "}" * 600,
    "a:\n" + "".join("  " * i + "- \n" for i in range(1, 600)),
    "- " * 900 + "x",
    "openapi: 3.0.0\npaths: {}\nx: " + BIG,
])
def test_deep_or_huge_documents_given_as_text_are_a_4xx(client, document) -> None:
    response = client.post("/api/v1/catalog/import", {"document": document, "dry_run": True}, format="json")
    assert response.status_code in (400, 413), response.content
    assert response.json()["error"] in ("document_too_deep", "invalid_catalog")
    assert not Tool.objects.exists()


def test_the_admin_import_page_shows_a_friendly_error_for_deep_and_big_integer_inputs(admin_client_logged_in) -> None:
    for text in ["[" * 1000 + "]" * 1000, '{"tools": [{"name": "a", "n": ' + BIG + "}]}", "x: " + BIG]:
        response = admin_client_logged_in.post("/admin/catalog-import/", {"text": text, "action": "preview"})
        assert response.status_code == 200
        assert "Nothing was imported" in response.content.decode()
    assert not Tool.objects.exists()


@pytest.mark.parametrize("options, error", [
    ("tools_path=$.tools.`sorted`", "invalid_jsonpath"),
    ("query_path=$." + ".".join(["messages"] * 1000), "invalid_jsonpath"),
    ("query_path=$.messages.`split(a, b, c)`", "invalid_jsonpath"),
    ("tools_path=$.tools[*]", "invalid_tools"),
    ("tools_path=$.tools.`len`", "invalid_tools"),
])
def test_jsonpaths_the_library_cannot_evaluate_are_a_400(client, options, error) -> None:
    name, _, path = options.partition("=")
    response = post_filter(client, openai_body("weather in Paris"), f"{name}={quote(path)}")
    assert response.status_code == 400, response.content
    assert response.json()["error"] == error


@pytest.mark.parametrize("options, reason", [
    ("query_path=$." + ".".join(["a"] * 200), "no-query"),
    ("tools_path=$.messages[?(@.role > 3)]", "no-tools"),  # a string compared with a number matches nothing
])
def test_jsonpaths_that_find_nothing_pass_the_body_through(client, options, reason) -> None:
    name, _, path = options.partition("=")
    body = openai_body("weather in Paris")
    response = post_filter(client, body, f"{name}={quote(path)}")
    assert response.status_code == 200, response.content
    assert response.headers["X-Toolrouter-Passthrough"] == reason
    assert response.content == json.dumps(body).encode()


@pytest.mark.parametrize("header, path", [
    ("HTTP_X_TOOLROUTER_TOOLS_PATH", "$.tools.`sorted`"),
    ("HTTP_X_TOOLROUTER_QUERY_PATH", "$." + ".".join(["messages"] * 1000)),
])
def test_the_same_paths_through_the_proxy_headers_are_a_400(client, header, path) -> None:
    response = client.generic("POST", "/v1/chat/completions", json.dumps(openai_body("weather")),
                              content_type="application/json", **{header: path})
    assert response.status_code == 400, response.content
    assert response.json()["error"] == "invalid_jsonpath"


def test_sorted_tools_path_is_refused_because_it_cannot_be_written_back(client) -> None:
    response = post_filter(client, openai_body("weather in Paris"), "tools_path=$.tools.%60sorted%60")
    assert response.status_code == 400
    assert response.json()["error"] == "invalid_jsonpath"


@pytest.mark.usefixtures("fresh_usage_buffers")
def test_nothing_is_logged_from_rejected_requests(client) -> None:
    for path in ("/api/v1/route", "/api/v1/tool-search"):
        assert post_raw(client, path, f'{{"query": "weather", "limit": {BIG}}}').status_code == 400
    accepted = post_raw(client, "/api/v1/route", '{"query": "weather", "strategy": "bm25"}')
    assert accepted.status_code == 200, accepted.content
    usage.drain_request_buffer()
    assert list(RequestLog.objects.values_list("request_id", flat=True)) == [accepted.json()["request_id"]]
