"""Posting JSON-RPC to /mcp with Django's test client, as an MCP client over streamable HTTP does."""
from __future__ import annotations

import json

from django.test import Client

ACCEPT = "application/json, text/event-stream"
INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}
LIST = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}


def post(client: Client, key: str | None, body: object, **headers: str):
    extra = {"HTTP_ACCEPT": ACCEPT, **{f"HTTP_{k.upper().replace('-', '_')}": v for k, v in headers.items()}}
    if key:
        extra["HTTP_AUTHORIZATION"] = f"Bearer {key}"
    data = body if isinstance(body, str) else json.dumps(body)
    return client.post("/mcp", data=data, content_type="application/json", **extra)


def open_session(client: Client, key: str) -> str:
    response = post(client, key, INIT)
    assert response.status_code == 200 and response.json()["result"]["protocolVersion"] == "2025-06-18"
    return response["Mcp-Session-Id"]


def call_tool_search(client: Client, key: str, session: str, arguments: dict) -> dict:
    """The result of one tools/call of tool_search (its structuredContent, or the error result)."""
    body = {"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {"name": "tool_search", "arguments": arguments}}
    return post(client, key, body, **{"Mcp-Session-Id": session}).json()["result"]
