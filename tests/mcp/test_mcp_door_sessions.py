"""The MCP door's HTTP rules: keys, sessions (missing, foreign, ended), versions, GET, Origin, bad bodies."""
from __future__ import annotations

import pytest

from api.services import create_api_key
from tests.support.mcp_http import INIT, LIST, open_session, post

pytestmark = pytest.mark.django_db


def test_a_session_is_needed_and_bound_to_its_key(client, key) -> None:
    session = open_session(client, key)
    assert post(client, key, LIST).status_code == 400  # no session
    listed = post(client, key, LIST, **{"Mcp-Session-Id": session, "MCP-Protocol-Version": "2025-06-18"})
    assert [t["name"] for t in listed.json()["result"]["tools"]] == ["tool_search"]
    other = create_api_key("another-mcp-client")[1]
    assert post(client, other, LIST, **{"Mcp-Session-Id": session}).status_code == 404
    assert post(client, key, LIST, **{"Mcp-Session-Id": session + "x"}).status_code == 404
    assert post(client, key, LIST, **{"Mcp-Session-Id": session, "MCP-Protocol-Version": "2025-03-26"}).status_code == 400


def test_delete_ends_the_session(client, key) -> None:
    session = open_session(client, key)
    assert client.delete("/mcp", HTTP_AUTHORIZATION=f"Bearer {key}", HTTP_MCP_SESSION_ID=session).status_code == 204
    assert post(client, key, LIST, **{"Mcp-Session-Id": session}).status_code == 404


def test_notifications_get_origin_keys_and_bad_bodies(client, key) -> None:
    session = open_session(client, key)
    note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    assert post(client, key, note, **{"Mcp-Session-Id": session}).status_code == 202
    assert client.get("/mcp", HTTP_AUTHORIZATION=f"Bearer {key}").status_code == 405
    assert post(client, None, INIT).status_code == 401
    assert post(client, key, INIT, Origin="http://evil.example").status_code == 403
    assert post(client, key, "{not json").json()["error"]["code"] == -32700
    assert post(client, key, [INIT]).json()["error"]["code"] == -32600
    unknown = post(client, key, {"jsonrpc": "2.0", "id": 3, "method": "resources/list"}, **{"Mcp-Session-Id": session})
    assert unknown.json()["error"]["code"] == -32601
    bad = post(client, key, {"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "tool_search",
               "arguments": {"query": ""}}}, **{"Mcp-Session-Id": session})
    assert bad.json()["result"]["isError"] is True
