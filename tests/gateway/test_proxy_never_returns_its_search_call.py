"""When the search rounds run out and the model still calls the proxy's `tool_search`, the client, which never
defined that tool, gets no call of it: the call is taken out of the final answer (streamed or not, in each
format), the client's own calls beside it stay, an answer left with nothing still parses as a finished turn,
`X-Toolrouter-Tool-Search: rounds-exhausted` says so, and the usage log records no search as used. On
/v1/responses the upstream still holds the search call, so the next turn naming that answer gets its output."""
from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx2 as httpx
import pytest
from openai import OpenAI

from api.services import create_api_key
from tests.gateway.proxy_support import scripted_upstream
from tests.gateway.requests_shapes import anthropic_tools, openai_tools, responses_tools
from tests.gateway.usage_support import proxy_feedback
from tests.support.scripted_llm import ScriptedLLM

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("fresh_usage_buffers")]
SEARCH = {"call": "tool_search", "arguments": {"query": "translate text"}}


def last_user_text(body: dict) -> str:
    said = body.get("messages") or body.get("input") or []
    return next(m["content"] for m in reversed(said) if m.get("role") == "user" and isinstance(m.get("content"), str))


def keeps_searching(kind: str, body: dict) -> dict:
    """Searches whatever the search found; "weather:" also calls the client's get_weather; "thanks" ends."""
    said = last_user_text(body)
    if said == "thanks":
        return {"text": "you are welcome"}
    if said.startswith("weather:"):
        return {"calls": [SEARCH, {"call": "get_weather", "arguments": {"input": "Paris"}}]}
    return SEARCH


@pytest.fixture
def upstream(settings) -> Iterator[ScriptedLLM]:
    with scripted_upstream(settings, keeps_searching) as server:
        settings.PROXY_TOOL_SEARCH_MAX_ROUNDS = 1
        yield server


@pytest.fixture
def key(upstream) -> str:
    return create_api_key("keeps-searching")[1]


@pytest.fixture
def client(live_server, key) -> OpenAI:
    return OpenAI(base_url=f"{live_server.url}/v1", api_key=key, max_retries=0)


def deferring(tools: list[dict]) -> list[Any]:  # Any: the SDKs type tools as their own TypedDicts
    """get_weather loads from the start, the others wait for a search."""
    return [tools[0], *({**t, "defer_loading": True} for t in tools[1:])]


def chat(client: OpenAI, text: str, **extra):
    return client.chat.completions.with_raw_response.create(
        model="gpt-4o", messages=[{"role": "user", "content": text}], tools=deferring(openai_tools()), **extra)


def test_a_chat_completion_ends_the_turn_without_the_search_call(client, upstream) -> None:
    raw = chat(client, "say hello in Spanish")
    choice = raw.parse().choices[0]
    assert (choice.message.tool_calls, choice.message.content, choice.finish_reason) == (None, "", "stop")
    assert raw.parse().usage.total_tokens == 4  # both upstream requests, as the upstream counted each
    assert raw.headers["x-toolrouter-tool-search"] == "rounds-exhausted" and len(upstream.raw) == 2
    assert proxy_feedback(raw.headers["x-toolrouter-request-id"]).used_tools == []


def test_the_clients_own_call_beside_it_stays(client, upstream) -> None:
    raw = chat(client, "weather: in Paris")
    choice = raw.parse().choices[0]
    assert [c.function.name for c in choice.message.tool_calls] == ["get_weather"]
    assert choice.finish_reason == "tool_calls"
    assert proxy_feedback(raw.headers["x-toolrouter-request-id"]).used_tools == ["get_weather"]


def test_a_streamed_chat_completion_has_no_search_call(client, upstream) -> None:
    chunks = list(chat(client, "say hello in Spanish", stream=True).parse())
    deltas = [c.choices[0] for c in chunks if c.choices]
    assert all(d.delta.tool_calls is None for d in deltas) and deltas[-1].finish_reason == "stop"


def messages(live_server, key: str, text: str, **extra) -> httpx.Response:
    body = {"model": "claude", "max_tokens": 100, "tools": deferring(anthropic_tools()),
            "messages": [{"role": "user", "content": text}], **extra}
    return httpx.post(f"{live_server.url}/v1/messages", json=body, headers={"x-api-key": key}, timeout=120)


def test_a_message_ends_the_turn_without_the_search_call(live_server, key) -> None:
    response = messages(live_server, key, "say hello in Spanish")
    assert response.status_code == 200 and response.headers["x-toolrouter-tool-search"] == "rounds-exhausted"
    answer = response.json()
    assert (answer["content"], answer["stop_reason"], answer["usage"]) == (
        [], "end_turn", {"input_tokens": 2, "output_tokens": 2})  # both upstream requests
    assert proxy_feedback(response.headers["x-toolrouter-request-id"]).used_tools == []


def test_a_message_keeps_the_clients_call(live_server, key) -> None:
    answer = messages(live_server, key, "weather: in Paris").json()
    assert [(b["type"], b["name"]) for b in answer["content"]] == [("tool_use", "get_weather")]
    assert answer["stop_reason"] == "tool_use"


def test_a_streamed_message_has_no_search_call(live_server, key) -> None:
    events = [json.loads(line[6:]) for line in messages(live_server, key, "say hello", stream=True).text.splitlines()
              if line.startswith("data: ")]
    assert [e["type"] for e in events] == ["message_start", "message_delta", "message_stop"]
    assert events[1]["delta"]["stop_reason"] == "end_turn"


def respond(client: OpenAI, text: str, **extra):
    return client.responses.with_raw_response.create(model="gpt-5", input=text, tools=deferring(responses_tools()),
                                                     **extra)


def test_a_response_has_no_search_call(client, upstream) -> None:
    raw = respond(client, "say hello in Spanish")
    response = raw.parse()
    assert response.output == [] and response.output_text == ""  # its reasoning went with it
    assert response.usage is not None and response.usage.total_tokens == 4
    assert raw.headers["x-toolrouter-tool-search"] == "rounds-exhausted"
    assert proxy_feedback(raw.headers["x-toolrouter-request-id"]).used_tools == []


def test_a_response_keeps_the_clients_call(client, upstream) -> None:
    output = respond(client, "weather: in Paris").parse().output
    assert [(item.type, getattr(item, "name", None)) for item in output] == [
        ("reasoning", None), ("function_call", "get_weather")]


def test_a_streamed_response_has_no_search_call(client, upstream) -> None:
    events = list(respond(client, "say hello in Spanish", stream=True).parse())
    assert [e.type for e in events] == ["response.created", "response.in_progress", "response.completed"]
    assert events[-1].response.output == []


def test_the_next_turn_answers_the_search_the_upstream_still_holds(client, upstream) -> None:
    first = respond(client, "say hello in Spanish").parse()
    respond(client, "thanks", previous_response_id=first.id)
    chained = json.loads(upstream.raw[-1][1])
    assert chained["previous_response_id"] == first.id == "resp_2"
    answered, asked = chained["input"]  # every call of the answer the upstream holds needs its output
    assert (answered["type"], answered["call_id"]) == ("function_call_output", "call_2")
    assert "search" in answered["output"] and asked == {"role": "user", "content": "thanks"}
