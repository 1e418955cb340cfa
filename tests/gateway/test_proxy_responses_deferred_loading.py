"""Deferred loading on POST /v1/responses, through the OpenAI SDK's `client.responses.create`: the upstream gets
the loaded tools and the proxy's `tool_search`, never a deferred tool before a search found it; the model
searches, then calls the tool found; each turn's upstream request begins with the one before it (tools and
`input`, byte for byte); a turn continuing with `previous_response_id` gets the tools found before again; the
used tool is logged; and the fail-safe puts the tools behind the search tool here too."""
from __future__ import annotations

import json
from collections.abc import Iterator

import httpx2 as httpx
import pytest
from openai import OpenAI

from api.services import create_api_key
from gateway.deferred import search_tool
from tests.gateway.proxy_support import scripted_upstream
from tests.gateway.requests_shapes import RESPONSES_BUILT_INS, responses_body, responses_tools
from tests.gateway.usage_support import proxy_feedback
from tests.support.scripted_llm import ScriptedLLM

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("fresh_usage_buffers")]


def search_then_translate(kind: str, body: dict) -> dict:
    """A user's "search:" message makes the model search; the search's result makes it call the tool found."""
    last = body["input"][-1]
    if last.get("type") == "function_call_output":
        return {"call": "translate_text", "arguments": {"input": "hello"}}
    text = last.get("content")
    if isinstance(text, str) and text.startswith("search:"):
        return {"call": "tool_search", "arguments": {"query": text.removeprefix("search:")}}
    return {"text": f"answer to {text}"}


@pytest.fixture
def upstream(settings) -> Iterator[ScriptedLLM]:
    with scripted_upstream(settings, search_then_translate) as server:
        yield server


def sdk(url: str, name: str) -> OpenAI:
    return OpenAI(base_url=f"{url}/v1", api_key=create_api_key(name)[1], max_retries=0)


def deferred_tools() -> list[dict]:
    """get_weather loads from the start, the others wait for a search."""
    tools = responses_tools()
    return [tools[0], *({**t, "defer_loading": True} for t in tools[1:])]


def sent(server: ScriptedLLM) -> list[dict]:
    return [json.loads(raw) for _, raw in server.raw]


def names(body: dict) -> list[str]:
    return [t.get("name", t["type"]) for t in body["tools"]]


def test_the_model_searches_then_calls_the_deferred_tool_found(live_server, upstream) -> None:
    raw = sdk(live_server.url, "responses-deferred").responses.with_raw_response.create(
        model="gpt-5", input="search:translate text", tools=deferred_tools())
    response = raw.parse()
    assert [(item.type, getattr(item, "name", None)) for item in response.output] == [
        ("reasoning", None), ("function_call", "translate_text")]
    first, second = sent(upstream)
    assert names(first) == ["get_weather", "tool_search"]  # nothing deferred before it is found
    assert names(second)[:2] == ["get_weather", "tool_search"] and "translate_text" in names(second)[2:]
    assert [item.get("type", "message") for item in second["input"]] == [
        "message", "reasoning", "function_call", "function_call_output"]  # the reasoning item beside its call
    assert second["input"][3]["call_id"] == second["input"][2]["call_id"] == "call_1"
    assert "translate_text" in second["input"][3]["output"]
    assert "defer_loading" not in json.dumps(sent(upstream))
    assert raw.headers["x-toolrouter-tools-found"].startswith("translate_text")
    assert proxy_feedback(raw.headers["x-toolrouter-request-id"]).used_tools == ["translate_text"]


def test_the_answer_echoes_the_clients_own_tools(live_server, upstream) -> None:
    """The Responses object repeats its request's tools: the client's, not the proxy's search and the tools found."""
    raw = sdk(live_server.url, "responses-echo").responses.with_raw_response.create(
        model="gpt-5", input="search:translate text", tools=deferred_tools())
    assert "tool_search" in names(sent(upstream)[-1])
    assert raw.http_response.json()["tools"] == deferred_tools()
    assert [tool.name for tool in raw.parse().tools] == [t["name"] for t in deferred_tools()]


def test_each_turn_begins_with_the_turn_before(live_server, upstream) -> None:
    """Four turns replayed by the client (no previous_response_id), searching on the first and the third."""
    client = sdk(live_server.url, "responses-prefix")
    history: list[dict] = []
    for text in ["search:translate text", "thanks", "search:send an email", "bye"]:
        history.append({"role": "user", "content": text})
        answer = client.responses.with_raw_response.create(model="gpt-5", instructions="Be brief.", input=history,
                                                             tools=deferred_tools())
        history += json.loads(answer.text)["output"]
    bodies = sent(upstream)
    assert len(bodies) == 6  # one extra round on each searching turn
    for before, body in zip(bodies, bodies[1:]):
        for part in ("tools", "input"):
            old = [json.dumps(e, ensure_ascii=False) for e in before[part]]
            assert [json.dumps(e, ensure_ascii=False) for e in body[part]][: len(old)] == old
    assert "send_email" in names(bodies[-1]) and "translate_text" in names(bodies[-1])


def test_a_turn_after_previous_response_id_gets_the_tools_found_again(live_server, upstream) -> None:
    client = sdk(live_server.url, "responses-chained")
    first = client.responses.create(model="gpt-5", input="search:translate text", tools=deferred_tools())
    client.responses.create(model="gpt-5", input="thanks", tools=deferred_tools(), previous_response_id=first.id)
    searched, found, chained = sent(upstream)
    assert chained["previous_response_id"] == first.id == "resp_2"  # the answer of the proxy's last round
    assert chained["input"] == [{"role": "user", "content": "thanks"}]  # the searches are in the upstream's chain
    assert chained["tools"] == found["tools"]
    assert "translate_text" in names(chained)


def test_another_key_does_not_get_the_tools_a_response_found(live_server, upstream) -> None:
    first = sdk(live_server.url, "responses-owner").responses.create(model="gpt-5", input="search:translate text",
                                                                     tools=deferred_tools())
    sdk(live_server.url, "responses-stranger").responses.create(
        model="gpt-5", input="thanks", tools=deferred_tools(), previous_response_id=first.id)
    assert names(sent(upstream)[-1]) == ["get_weather", "tool_search"]


def test_nothing_selected_puts_the_tools_behind_the_search_tool(live_server, upstream) -> None:
    key = create_api_key("responses-fail-safe")[1]
    body = responses_body("zzqx qqzx", tools=[*responses_tools(), *RESPONSES_BUILT_INS])
    response = httpx.post(f"{live_server.url}/v1/responses", json=body, timeout=120,
                          headers={"Authorization": f"Bearer {key}", "X-Toolrouter-Strategy": "bm25"})
    assert response.status_code == 200, response.text
    assert response.headers["x-toolrouter-fail-safe"] == "nothing-selected: the tools wait behind tool_search"
    assert sent(upstream)[-1]["tools"] == [*RESPONSES_BUILT_INS, search_tool("responses", "tool_search")]


def test_a_deferred_function_without_a_name_is_a_400_that_says_so(live_server, upstream) -> None:
    key = create_api_key("responses-nameless")[1]
    tools = [*deferred_tools(), {"type": "function", "description": "no name", "defer_loading": True}]
    response = httpx.post(f"{live_server.url}/v1/responses", json={"model": "gpt-5", "input": "hi", "tools": tools},
                          headers={"Authorization": f"Bearer {key}"}, timeout=30)
    assert response.status_code == 400 and response.json()["error"] == "invalid_request"
    assert "without a name" in response.json()["message"] and upstream.raw == []
