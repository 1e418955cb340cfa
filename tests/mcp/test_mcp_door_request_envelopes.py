"""JSON-RPC envelopes the SDK's types let through as notifications: every request gets an answer,
and a notification or a reply needs its session like a request does."""
from __future__ import annotations

import pytest

from tests.support.mcp_http import open_session, post

pytestmark = pytest.mark.django_db


def test_a_whole_number_written_as_a_float_is_answered_under_that_id(client, key) -> None:
    session = open_session(client, key)
    response = post(client, key, {"jsonrpc": "2.0", "id": 7.0, "method": "ping"}, **{"Mcp-Session-Id": session})
    assert response.status_code == 200
    assert response.json() == {"jsonrpc": "2.0", "id": 7, "result": {}}


@pytest.mark.parametrize("request_id", [2.5, None, True, {"a": 1}, [1]])
def test_an_id_that_is_no_string_or_whole_number_is_an_invalid_request(client, key, request_id) -> None:
    session = open_session(client, key)
    response = post(client, key, {"jsonrpc": "2.0", "id": request_id, "method": "ping"}, **{"Mcp-Session-Id": session})
    assert response.status_code == 400
    assert response.json()["error"]["code"] == -32600 and response.json()["id"] is None


def test_a_reply_with_both_result_and_error_is_an_invalid_request(client, key) -> None:
    session = open_session(client, key)
    body = {"jsonrpc": "2.0", "id": 1, "result": {}, "error": {"code": 1, "message": "x"}}
    response = post(client, key, body, **{"Mcp-Session-Id": session})
    assert response.status_code == 400 and response.json()["error"]["code"] == -32600


def test_a_notification_needs_a_live_session(client, key) -> None:
    note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    assert post(client, key, note).status_code == 400
    assert post(client, key, note, **{"Mcp-Session-Id": "bogus"}).status_code == 404
    assert post(client, key, note, **{"Mcp-Session-Id": open_session(client, key)}).status_code == 202


def test_an_unpaired_surrogate_is_a_parse_error_not_a_crash(client, key) -> None:
    body = '{"jsonrpc": "2.0", "id": "\\ud800", "method": "tools/list"}'
    response = post(client, key, body, **{"Mcp-Session-Id": open_session(client, key)})
    assert response.status_code == 400
    assert response.json()["error"]["code"] == -32700
    assert "unpaired surrogate" in response.json()["error"]["message"]


def test_get_is_refused_without_claiming_get_is_allowed(client, key) -> None:
    response = client.get("/mcp", HTTP_AUTHORIZATION=f"Bearer {key}")
    assert response.status_code == 405
    assert "GET" not in response["Allow"] and "POST" in response["Allow"]
