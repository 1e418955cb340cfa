"""The chat proxy's fail-safe (nothing selected: the tools wait behind its search tool) fires even when the
body carries a provider's built-in, and the built-in stays loaded as sent: it is never ranked, so no search
could ever load it."""
from __future__ import annotations

import json
from collections.abc import Iterator

import httpx2 as httpx
import pytest

from api.services import create_api_key
from tests.gateway.proxy_support import scripted_upstream
from tests.gateway.requests_shapes import openai_tools
from tests.support.scripted_llm import ScriptedLLM

pytestmark = pytest.mark.django_db(transaction=True)
BUILT_IN = {"type": "web_search_preview"}


@pytest.fixture
def upstream(settings) -> Iterator[ScriptedLLM]:
    with scripted_upstream(settings, lambda kind, body: {"text": "final answer"}) as server:
        yield server


def test_nothing_selected_keeps_the_built_in_beside_the_search_tool(live_server, upstream) -> None:
    key = create_api_key("built-in-fail-safe-agent")[1]
    body = {"model": "gpt-4o", "tools": [BUILT_IN, *openai_tools()], "messages": [{"role": "user", "content": "zzqx qqzx"}]}
    response = httpx.post(f"{live_server.url}/v1/chat/completions", json=body,
                          headers={"Authorization": f"Bearer {key}", "X-Toolrouter-Strategy": "bm25"}, timeout=120)
    assert response.status_code == 200, response.text
    assert response.headers["x-toolrouter-fail-safe"] == "nothing-selected: the tools wait behind tool_search"
    sent = json.loads(upstream.raw[-1][1])["tools"]
    assert sent[0] == BUILT_IN and [t["function"]["name"] for t in sent[1:]] == ["tool_search"]
