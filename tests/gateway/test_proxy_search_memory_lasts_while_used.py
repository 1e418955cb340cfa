"""Deferred loading remembers a conversation's searches (and, on /v1/responses, the tools the upstream's answer was
given) in Redis for PROXY_TOOL_SEARCH_MEMORY_SECONDS; a turn that reads them renews that time, so a conversation
lasting longer than it keeps its early searches (its prompt-cache prefix, its tools' order) while in use."""
from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx2 as httpx
import pytest

from api.services import create_api_key
from gateway import deferred
from shared.redis_client import get_redis
from tests.gateway.proxy_support import scripted_upstream
from tests.gateway.requests_shapes import openai_tools, responses_tools
from tests.support.scripted_llm import ScriptedLLM

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("fresh_usage_buffers")]
MEMORY_SECONDS = 600
NEARLY_EXPIRED = 5


def last_said(body: dict) -> dict:
    return body["input" if "input" in body else "messages"][-1]


def search_then_answer(kind: str, body: dict) -> dict:
    """A "search:" message makes the model search; anything else (a search's result too) gets an answer."""
    content = last_said(body).get("content")
    if isinstance(content, str) and content.startswith("search:"):
        return {"call": "tool_search", "arguments": {"query": content.removeprefix("search:")}}
    return {"text": "done"}


@pytest.fixture
def upstream(settings) -> Iterator[ScriptedLLM]:
    with scripted_upstream(settings, search_then_answer) as server:
        settings.PROXY_TOOL_SEARCH_MEMORY_SECONDS = MEMORY_SECONDS
        yield server


def deferring(tools: list[dict]) -> list[Any]:
    return [tools[0], *({**t, "defer_loading": True} for t in tools[1:])]


def post(live_server, key: str, path: str, body: dict) -> dict:
    response = httpx.post(f"{live_server.url}{path}", json=body, headers={"Authorization": f"Bearer {key}"},
                          timeout=120)
    assert response.status_code == 200, response.text
    return response.json()


def nearly_expire(redis_key: str) -> None:
    assert get_redis().expire(redis_key, NEARLY_EXPIRED), f"{redis_key} was not remembered"


def test_a_chat_conversations_searches_last_while_it_goes_on(live_server, upstream) -> None:
    api_key, key = create_api_key("long-chat")
    asked: list[dict] = [{"role": "user", "content": "search:translate text"}]
    first = {"model": "gpt-4o", "tools": deferring(openai_tools()), "messages": asked}
    post(live_server, key, "/v1/chat/completions", first)
    plan = deferred.plan("openai", first)
    assert plan is not None
    searched_after = deferred.conversation_keys(api_key.pk, plan, asked)[1]  # the search followed the first message
    nearly_expire(searched_after)
    later = {**first, "messages": [*asked, {"role": "assistant", "content": "done"}, {"role": "user", "content": "thanks"}]}
    post(live_server, key, "/v1/chat/completions", later)
    assert get_redis().ttl(searched_after) > NEARLY_EXPIRED


def test_the_tools_of_a_response_last_while_the_conversation_goes_on(live_server, upstream) -> None:
    api_key, key = create_api_key("long-responses")
    tools = deferring(responses_tools())
    answer = post(live_server, key, "/v1/responses", {"model": "gpt-5", "input": "search:translate text", "tools": tools})
    [held] = deferred.held_keys(api_key.pk, {"previous_response_id": answer["id"]})
    nearly_expire(held)
    post(live_server, key, "/v1/responses",
         {"model": "gpt-5", "input": "thanks", "tools": tools, "previous_response_id": answer["id"]})
    assert get_redis().ttl(held) > NEARLY_EXPIRED
