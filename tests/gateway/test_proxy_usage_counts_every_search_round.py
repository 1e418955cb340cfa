"""Deferred loading: one client request costs an upstream request per search round, each billed by the provider,
so the answer's `usage` (streamed or not, in each format) is the sum over the turn's rounds: every number added,
nested details too, any other field the last round's, a round without `usage` adding nothing; and
`X-Toolrouter-Upstream-Requests` says how many requests were summed."""
from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx2 as httpx
import pytest

from api.services import create_api_key
from tests.gateway.proxy_support import scripted_upstream
from tests.gateway.requests_shapes import anthropic_tools, openai_tools, responses_tools
from tests.support.scripted_llm import ScriptedLLM

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("fresh_usage_buffers")]
SEARCH = {"call": "tool_search", "arguments": {"query": "translate text"}}
PATHS = {"openai": "/v1/chat/completions", "anthropic": "/v1/messages", "responses": "/v1/responses"}

# Per format: the usage of the searching round, then of the answering round, and their sum.
USAGE: dict[str, tuple[dict, dict, dict]] = {
    "openai": (
        {"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110,
         "prompt_tokens_details": {"cached_tokens": 0}, "completion_tokens_details": {"reasoning_tokens": 4}},
        {"prompt_tokens": 150, "completion_tokens": 20, "total_tokens": 170,
         "prompt_tokens_details": {"cached_tokens": 96}, "completion_tokens_details": {"reasoning_tokens": 6}},
        {"prompt_tokens": 250, "completion_tokens": 30, "total_tokens": 280,
         "prompt_tokens_details": {"cached_tokens": 96}, "completion_tokens_details": {"reasoning_tokens": 10}}),
    "anthropic": (
        {"input_tokens": 100, "output_tokens": 10, "cache_creation_input_tokens": 90, "cache_read_input_tokens": 0,
         "service_tier": "standard", "server_tool_use": {"web_search_requests": 1}},
        {"input_tokens": 50, "output_tokens": 20, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 90,
         "service_tier": "priority"},
        {"input_tokens": 150, "output_tokens": 30, "cache_creation_input_tokens": 90, "cache_read_input_tokens": 90,
         "service_tier": "priority", "server_tool_use": {"web_search_requests": 1}}),
    "responses": (
        {"input_tokens": 100, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 10,
         "output_tokens_details": {"reasoning_tokens": 4}, "total_tokens": 110},
        {"input_tokens": 150, "input_tokens_details": {"cached_tokens": 96}, "output_tokens": 20,
         "output_tokens_details": {"reasoning_tokens": 6}, "total_tokens": 170},
        {"input_tokens": 250, "input_tokens_details": {"cached_tokens": 96}, "output_tokens": 30,
         "output_tokens_details": {"reasoning_tokens": 10}, "total_tokens": 280}),
}


def has_a_search_result(kind: str, body: dict) -> bool:
    last = body["input" if kind == "responses" else "messages"][-1]
    if kind == "responses":
        return last.get("type") == "function_call_output"
    if kind == "anthropic":
        return isinstance(last["content"], list) and last["content"][0].get("type") == "tool_result"
    return last["role"] == "tool"


def searches_once(kind: str, body: dict) -> dict:
    """Searches, then answers once it has the search's result: two rounds, each with its own usage."""
    searching, answering, _ = USAGE[kind]
    if has_a_search_result(kind, body):
        return {"text": "done", "usage": answering}
    return {**SEARCH, "usage": searching}


@pytest.fixture
def upstream(settings) -> Iterator[ScriptedLLM]:
    with scripted_upstream(settings, searches_once) as server:
        yield server


@pytest.fixture
def key(upstream) -> str:
    return create_api_key("usage-counter")[1]


def deferring(tools: list[dict]) -> list[Any]:
    return [tools[0], *({**t, "defer_loading": True} for t in tools[1:])]


def ask(live_server, key: str, kind: str, **extra) -> httpx.Response:
    if kind == "responses":
        body: dict = {"model": "gpt-5", "input": "translate hello", "tools": deferring(responses_tools())}
    elif kind == "anthropic":
        body = {"model": "claude", "max_tokens": 100, "tools": deferring(anthropic_tools()),
                "messages": [{"role": "user", "content": "translate hello"}]}
    else:
        body = {"model": "gpt-4o", "tools": deferring(openai_tools()),
                "messages": [{"role": "user", "content": "translate hello"}]}
    response = httpx.post(f"{live_server.url}{PATHS[kind]}", json={**body, **extra},
                          headers={"Authorization": f"Bearer {key}"}, timeout=120)
    assert response.status_code == 200, response.text
    assert response.headers["x-toolrouter-tool-search-rounds"] == "1"
    return response


def events(response: httpx.Response) -> list[dict]:
    return [json.loads(line[6:]) for line in response.text.splitlines()
            if line.startswith("data: ") and line != "data: [DONE]"]


@pytest.mark.parametrize("kind", ["openai", "anthropic", "responses"])
def test_the_answer_counts_every_rounds_usage(live_server, key, kind: str) -> None:
    assert ask(live_server, key, kind).json()["usage"] == USAGE[kind][2]


@pytest.mark.parametrize("stream", [False, True])
def test_the_answer_says_how_many_upstream_requests_it_cost(live_server, key, stream: bool) -> None:
    assert ask(live_server, key, "responses", stream=stream).headers["x-toolrouter-upstream-requests"] == "2"


def test_a_streamed_chat_completion_ends_with_the_summed_usage(live_server, key) -> None:
    chunks = events(ask(live_server, key, "openai", stream=True))
    assert chunks[-1]["choices"] == [] and chunks[-1]["usage"] == USAGE["openai"][2]


def test_a_streamed_message_carries_the_summed_usage(live_server, key) -> None:
    sent = events(ask(live_server, key, "anthropic", stream=True))
    start = next(e for e in sent if e["type"] == "message_start")
    delta = next(e for e in sent if e["type"] == "message_delta")
    assert start["message"]["usage"] == USAGE["anthropic"][2]
    assert delta["usage"]["output_tokens"] == USAGE["anthropic"][2]["output_tokens"]


def test_a_streamed_response_completes_with_the_summed_usage(live_server, key) -> None:
    completed = events(ask(live_server, key, "responses", stream=True))[-1]
    assert completed["type"] == "response.completed"
    assert completed["response"]["usage"] == USAGE["responses"][2]


def searches_twice_first_without_usage(kind: str, body: dict) -> dict:
    searching, answering, _ = USAGE[kind]
    results = sum(1 for m in body["messages"] if m["role"] == "tool")
    moves: list[dict] = [{**SEARCH, "usage": None}, {**SEARCH, "usage": searching}, {"text": "done", "usage": answering}]
    return moves[results]


def test_a_round_without_usage_adds_nothing(live_server, key, upstream) -> None:
    upstream.script = searches_twice_first_without_usage
    body = {"model": "gpt-4o", "tools": deferring(openai_tools()),
            "messages": [{"role": "user", "content": "translate hello"}]}
    response = httpx.post(f"{live_server.url}/v1/chat/completions", json=body,
                          headers={"Authorization": f"Bearer {key}"}, timeout=120)
    assert response.json()["usage"] == USAGE["openai"][2]
    assert response.headers["x-toolrouter-upstream-requests"] == "3"
