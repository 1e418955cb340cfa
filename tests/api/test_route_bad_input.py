import pytest

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("body,field", [
    ({}, "query"),
    ({"query": ""}, "query"),
    ({"query": "x" * 5000}, "query"),
    ({"query": "x", "limit": 0}, "limit"),
    ({"query": "x", "limit": 51}, "limit"),
    ({"query": "x", "limit": "5"}, "limit"),
    ({"query": "x", "limit": True}, "limit"),
    ({"query": "x", "mode": "all"}, "mode"),
    ({"query": "x", "threshold": 1.5}, "threshold"),
    ({"query": "x", "strategy": "magic"}, "strategy"),
    ({"query": "x", "format": "xml"}, "format"),
    ({"query": "x", "explain": "yes"}, "explain"),
    ({"query": "x", "limt": 3}, "limt"),
    ({"query": 42}, "query"),
    ({"messages": [{"role": "assistant", "content": "hi"}]}, "query"),
])
def test_invalid_fields_are_400_naming_the_field(route_client, body, field) -> None:
    response = route_client.post("/api/v1/route", body, format="json")
    assert response.status_code == 400, response.content
    payload = response.json()
    assert payload["error"] == "invalid_request"
    assert field in payload["details"] and field in payload["message"]


@pytest.mark.parametrize("raw,code", [
    (b"{not json", "invalid_json"),
    (b"", "invalid_request"),
    (b"[1, 2]", "invalid_request"),
    (b"\xff\xfe", "invalid_json"),
])
def test_malformed_bodies_are_400_json(route_client, raw, code) -> None:
    response = route_client.post("/api/v1/route", raw, content_type="application/json")
    assert response.status_code == 400
    assert response.json()["error"] == code


def test_too_deep_json_is_rejected(route_client) -> None:
    raw = b'{"query": "x", "messages": ' + b"[" * 100 + b"]" * 100 + b"}"
    response = route_client.post("/api/v1/route", raw, content_type="application/json")
    assert response.status_code == 400 and response.json()["error"] == "json_too_deep"


def test_too_large_body_is_413(route_client, settings) -> None:
    settings.API_MAX_BODY_BYTES = 1000
    response = route_client.post("/api/v1/route", {"query": "x" * 2000}, format="json")
    assert response.status_code == 413 and response.json()["error"] == "body_too_large"


def test_unknown_toolset_and_category_are_400(route_client) -> None:
    response = route_client.post("/api/v1/route", {"query": "x", "toolset": "nope"}, format="json")
    assert response.status_code == 400 and response.json()["error"] == "unknown_toolset"
    response = route_client.post("/api/v1/route", {"query": "x", "categories": ["nope"]}, format="json")
    assert response.status_code == 400 and response.json()["error"] == "unknown_category"


def test_unknown_path_is_json_404(route_client) -> None:
    response = route_client.get("/api/v1/nothing-here")
    assert response.status_code == 404 and response.json()["error"] == "not_found"


def test_wrong_method_is_405_json(route_client) -> None:
    response = route_client.get("/api/v1/route")
    assert response.status_code == 405 and response.json()["error"] == "method_not_allowed"
