"""Malformed JSON, JSONPath or tools: a 400 JSON error, never a 500."""
import pytest

from api.models import ApiKey
from tests.gateway.requests_shapes import openai_body, post_filter
from tests.support.catalog import api_client


@pytest.mark.parametrize("raw", [b"{not json", b'{"messages": [', b"\xff\xfe", b"[1, 2]", b'"a string"'])
def test_malformed_json(db, route_client, raw) -> None:
    response = post_filter(route_client, raw)
    assert response.status_code == 400
    assert response.json()["error"] == "invalid_json"


@pytest.mark.parametrize("query", ["query_path=$.messages[", "tools_path=$..[?(", "query_path=not a path %%"])
def test_malformed_jsonpath_per_request(db, route_client, query) -> None:
    response = post_filter(route_client, openai_body("weather"), query)
    assert response.status_code == 400
    body = response.json()
    assert body["error"] == "invalid_jsonpath" and "JSONPath" in body["message"] and body["details"]


def test_malformed_jsonpath_on_the_key(db) -> None:
    client = api_client(["route"], name="bad-path")
    ApiKey.objects.filter(name="bad-path").update(filter_tools_path="$.tools[")
    response = post_filter(client, openai_body("weather"))
    assert response.status_code == 400 and response.json()["error"] == "invalid_jsonpath"


@pytest.mark.parametrize("tools", [{"get_weather": {}}, ["get_weather"], "tools"])
def test_tools_that_are_not_a_list_of_objects(db, route_client, tools) -> None:
    response = post_filter(route_client, openai_body("weather", tools=tools))
    assert response.status_code == 400 and response.json()["error"] == "invalid_tools"


@pytest.mark.parametrize("query", ["mode=best", "limit=0", "limit=abc", "threshold=2", "strategy=hierarchical",
                                   "limt=3", "limit=1_0", "limit=%D9%A3", "threshold=0_5", "threshold=nan"])
def test_bad_options(db, route_client, query) -> None:
    response = post_filter(route_client, openai_body("weather"), query)
    assert response.status_code == 400 and response.json()["error"] == "invalid_request"


def test_without_a_key(db) -> None:
    from rest_framework.test import APIClient

    response = post_filter(APIClient(), openai_body("weather"))
    assert response.status_code == 401 and response.json()["error"] == "unauthenticated"
