"""The MCP door's tool_search keeps the fail-safe's promise: tool_search itself among the tools,
the notes of select: terms it could not honour, and a query the route endpoint refuses refused too."""
from __future__ import annotations

import pytest

from api.services import create_api_key
from tests.support.mcp_http import call_tool_search, open_session

pytestmark = pytest.mark.django_db


def test_a_select_of_no_tool_answers_tool_search_and_says_why(client, demo_catalog) -> None:
    key = create_api_key("mcp-fail-safe")[1]
    result = call_tool_search(client, key, open_session(client, key), {"query": "select:no_such_tool"})
    structured = result["structuredContent"]
    names = [t["name"] for t in structured["tools"]]
    assert "tool_search" in names and names  # never zero tools
    assert set(structured["failSafe"]["added"]) <= set(names)
    assert structured["explicit"]["notes"] == ["select:no_such_tool matched no tool"]


@pytest.mark.parametrize("query", ["play\u0000jazz"])
def test_a_query_holding_a_nul_is_refused(client, demo_catalog, query) -> None:
    key = create_api_key("mcp-nul")[1]
    result = call_tool_search(client, key, open_session(client, key), {"query": query})
    assert result["isError"] is True
    assert "NUL" in result["content"][0]["text"]
