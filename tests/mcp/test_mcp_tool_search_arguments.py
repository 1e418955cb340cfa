"""tool_search's limit is a JSON Schema integer: 5.0 is one, 5.5 is not."""
from __future__ import annotations

import pytest

from api.services import create_api_key
from tests.support.mcp_http import call_tool_search, open_session

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("limit,refused", [(3.0, False), (3.5, True), (True, True)])
def test_a_whole_float_is_a_limit(client, demo_catalog, limit, refused) -> None:
    key = create_api_key("mcp-limit")[1]
    session = open_session(client, key)
    result = call_tool_search(client, key, session, {"query": "play some jazz", "limit": limit})
    assert result.get("isError", False) is refused
    if not refused:
        as_int = call_tool_search(client, key, session, {"query": "play some jazz", "limit": int(limit)})
        assert result["structuredContent"]["tools"] == as_int["structuredContent"]["tools"]
