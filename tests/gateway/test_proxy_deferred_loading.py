"""Deferred loading details: streaming, pinned tools, the OpenAI spelling of the flag, the
proxy's fail-safe, and a conversation whose remembered searches Redis lost."""
from __future__ import annotations

import json
from collections.abc import Iterator

import httpx2 as httpx
import pytest

from api.models import ApiKey
from api.services import create_api_key
from gateway import deferred
from shared.redis_client import get_redis
from tests.gateway.proxy_support import scripted_upstream
from tests.gateway.requests_shapes import anthropic_tools, openai_tools
from tests.support.scripted_llm import ScriptedLLM

pytestmark = pytest.mark.django_db(transaction=True)


def search_then_answer(kind: str, body: dict) -> dict:
    last = body["messages"][-1]
    asked = last.get("content") if isinstance(last.get("content"), str) and last["role"] == "user" else None
    if asked and asked.startswith("search:"):
        return {"call": "tool_search", "arguments": {"query": asked.removeprefix("search:")}}
    return {"text": "final answer"}


@pytest.fixture
def upstream(settings) -> Iterator[ScriptedLLM]:
    with scripted_upstream(settings, search_then_answer) as server:
        yield server


def sent_bodies(server: ScriptedLLM) -> list[dict]:
    return [json.loads(raw) for _, raw in server.raw]


def names(body: dict) -> list[str]:
    return [t.get("name") or t["function"]["name"] for t in body["tools"]]


def test_stream_true_searches_unstreamed_and_streams_the_final_answer(live_server, upstream) -> None:
    key = create_api_key("stream-agent")[1]
    tools = [{**t, "defer_loading": True} for t in anthropic_tools()]
    body = {"model": "m", "max_tokens": 100, "stream": True, "tools": tools,
            "messages": [{"role": "user", "content": "search:translate text"}]}
    with httpx.stream("POST", f"{live_server.url}/v1/messages", json=body, headers={"x-api-key": key}, timeout=120) as response:
        assert response.headers["content-type"].startswith("text/event-stream")
        events = b"".join(response.iter_bytes()).decode()
    assert events.startswith("event: message_start")
    deltas = [json.loads(line[6:]) for line in events.splitlines() if line.startswith("data: ")]
    assert "".join(d["delta"]["text"] for d in deltas if d["type"] == "content_block_delta") == "final answer"
    first, second = sent_bodies(upstream)
    assert first["stream"] is False and names(first) == ["tool_search"]
    assert names(second)[0] == "tool_search" and "translate_text" in names(second)
    assert second["messages"][-1]["content"][0]["type"] == "tool_result"


def test_the_openai_flag_may_sit_inside_function(live_server, upstream) -> None:
    key = create_api_key("openai-flag-agent")[1]
    tools = openai_tools()
    for tool in tools[1:]:  # the first tool (get_weather) loads from the start
        tool["function"]["defer_loading"] = True
    body = {"model": "gpt-4o", "tools": tools, "messages": [{"role": "user", "content": "hello"}]}
    response = httpx.post(f"{live_server.url}/v1/chat/completions", json=body,
                          headers={"Authorization": f"Bearer {key}"}, timeout=120)
    assert response.status_code == 200 and response.headers["x-toolrouter-tools-after"] == "2"
    assert names(sent_bodies(upstream)[-1]) == ["get_weather", "tool_search"]
    assert "defer_loading" not in json.dumps(sent_bodies(upstream)[-1])


def test_a_pinned_tool_loads_even_when_deferred(live_server, upstream) -> None:
    from toolcatalog.models import Tool

    Tool.objects.create(name="send_email", description="Send an email message to a recipient")
    api_key, key = create_api_key("pinned-agent")
    ApiKey.objects.filter(pk=api_key.pk).update(pinned_tools=["send_email"])
    body = {"model": "gpt-4o", "tools": [{**t, "defer_loading": True} for t in openai_tools()],
            "messages": [{"role": "user", "content": "hello"}]}
    httpx.post(f"{live_server.url}/v1/chat/completions", json=body, headers={"Authorization": f"Bearer {key}"}, timeout=120)
    assert names(sent_bodies(upstream)[-1]) == ["send_email", "tool_search"]


def test_nothing_selected_puts_the_tools_behind_the_search_tool(live_server, upstream) -> None:
    key = create_api_key("fail-safe-agent")[1]
    body = {"model": "gpt-4o", "tools": openai_tools(), "messages": [{"role": "user", "content": "zzqx qqzx"}]}
    response = httpx.post(f"{live_server.url}/v1/chat/completions", json=body,
                          headers={"Authorization": f"Bearer {key}", "X-Toolrouter-Strategy": "bm25"}, timeout=120)
    assert response.status_code == 200
    assert response.headers["x-toolrouter-fail-safe"] == "nothing-selected: the tools wait behind tool_search"
    assert names(sent_bodies(upstream)[-1]) == ["tool_search"]


def test_a_called_tool_stays_loaded_when_the_searches_are_forgotten(live_server, upstream) -> None:
    key = create_api_key("forgetful-agent")[1]
    tools = [{**t, "defer_loading": True} for t in openai_tools()]
    history = [{"role": "user", "content": "earlier"},
               {"role": "assistant", "content": None, "tool_calls": [
                   {"id": "c1", "type": "function", "function": {"name": "book_flight", "arguments": "{}"}}]},
               {"role": "tool", "tool_call_id": "c1", "content": "booked"},
               {"role": "user", "content": "thanks"}]
    get_redis().delete(*get_redis().keys("toolrouter:deferred:*") or ["none"])
    httpx.post(f"{live_server.url}/v1/chat/completions", json={"model": "gpt-4o", "tools": tools, "messages": history},
               headers={"Authorization": f"Bearer {key}"}, timeout=120)
    assert names(sent_bodies(upstream)[-1]) == ["tool_search", "book_flight"]


def test_events_of_an_openai_answer_carry_its_tool_calls() -> None:
    answer = {"id": "x", "created": 1, "model": "m", "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
        "role": "assistant", "content": None,
        "tool_calls": [{"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}}]}}]}
    events = b"".join(deferred.as_events("openai", answer)).decode().split("\n\n")
    chunks = [json.loads(e[6:]) for e in events if e.startswith("data: {")]
    assert chunks[1]["choices"][0]["delta"]["tool_calls"][0]["function"]["name"] == "f"
    assert chunks[-1]["choices"][0]["finish_reason"] == "tool_calls" and events[-2] == "data: [DONE]"
