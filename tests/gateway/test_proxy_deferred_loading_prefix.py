"""Deferred loading through the proxy keeps the prompt prefix byte-identical across turns.

Ten client turns against a real local upstream (OpenAI Chat Completions, then Anthropic
Messages); on three of them the model searches for tools. Every upstream request must begin,
element by element and byte by byte, with the request before it: the tools only grow at
their end, the messages only grow at their end, nothing else changes.
"""
from __future__ import annotations

import json
from collections.abc import Iterator

import httpx2 as httpx
import pytest

from api.services import create_api_key
from tests.gateway.proxy_support import scripted_upstream
from tests.support.catalog import demo_document
from tests.support.scripted_llm import ScriptedLLM
from tests.support.worker import ARTIFACTS

pytestmark = pytest.mark.django_db(transaction=True)

LOADED = {"get_current_time", "ask_user_clarification"}
SEARCHES = {3: "weather forecast for a city", 6: "send an email", 9: "select:get_lyrics"}  # turn -> query
TURNS = 10


def catalog_tools(kind: str) -> list[dict]:
    tools = []
    for tool in demo_document()["tools"]:
        if kind == "openai":
            entry = {"type": "function", "function": {"name": tool["name"], "description": tool["description"],
                                                      "parameters": tool["parameters"]}}
        else:
            entry = {"name": tool["name"], "description": tool["description"], "input_schema": tool["parameters"]}
        if tool["name"] not in LOADED:
            entry["defer_loading"] = True
        tools.append(entry)
    return tools


def script(kind: str, body: dict) -> dict:
    """Search when the user's message asks for it; otherwise (and after a search) answer."""
    last = body["messages"][-1]
    if kind == "openai" and last["role"] == "user":
        text = last["content"]
    elif kind == "anthropic" and isinstance(last["content"], str):
        text = last["content"]
    else:
        return {"text": f"done after {len(body['tools'])} tools"}
    for turn, query in SEARCHES.items():
        if text.startswith(f"turn {turn}:"):
            return {"call": "tool_search", "arguments": {"query": query, "limit": 2}}
    return {"text": f"answer to {text}"}


@pytest.fixture
def upstream(settings) -> Iterator[ScriptedLLM]:
    with scripted_upstream(settings, script) as server:
        yield server


def converse(url: str, key: str, kind: str) -> list[dict]:
    """Ten turns as a client makes them: send the history, append the answer, ask the next thing."""
    if kind == "openai":
        body = {"model": "gpt-4o", "tools": catalog_tools(kind),
                "messages": [{"role": "system", "content": "You are a helpful agent."}]}
        path = "/v1/chat/completions"
    else:
        body = {"model": "claude-sonnet-4-5", "max_tokens": 512, "system": "You are a helpful agent.",
                "tools": catalog_tools(kind), "messages": []}
        path = "/v1/messages"
    answers = []
    for turn in range(1, TURNS + 1):
        body["messages"].append({"role": "user", "content": f"turn {turn}: please help"})
        response = httpx.post(url + path, json=body, headers={"Authorization": f"Bearer {key}", "x-api-key": key},
                              timeout=120)
        assert response.status_code == 200, response.text
        answer = response.json()
        answers.append({"answer": answer, "headers": dict(response.headers)})
        if kind == "openai":
            body["messages"].append(answer["choices"][0]["message"])
        else:
            body["messages"].append({"role": "assistant", "content": answer["content"]})
    return answers


def prompt_parts(kind: str, body: dict) -> list[str]:
    """The request in the order a provider builds its prompt: tools, system, messages."""
    system = [json.dumps(body.get("system"), ensure_ascii=False)] if kind == "anthropic" else []
    return ([json.dumps(t, ensure_ascii=False) for t in body["tools"]] + system
            + [json.dumps(m, ensure_ascii=False) for m in body["messages"]])


def check_prefixes(kind: str, raw: list[bytes]) -> list[str]:
    lines = []
    bodies = [json.loads(r) for r in raw]
    for number, (data, body) in enumerate(zip(raw, bodies, strict=True), start=1):
        # The bytes sent are exactly this serialisation, so comparing elements compares bytes.
        assert json.dumps(body, ensure_ascii=False).encode() == data
        assert b"defer_loading" not in data
        line = f"{kind} request {number:2}: {len(body['tools']):2} tools, {len(body['messages']):2} messages"
        if number > 1:
            before = bodies[number - 2]
            assert {k: v for k, v in body.items() if k not in ("tools", "messages")} == \
                   {k: v for k, v in before.items() if k not in ("tools", "messages")}
            old_tools = [json.dumps(t, ensure_ascii=False) for t in before["tools"]]
            old_messages = [json.dumps(m, ensure_ascii=False) for m in before["messages"]]
            assert [json.dumps(t, ensure_ascii=False) for t in body["tools"]][: len(old_tools)] == old_tools
            assert [json.dumps(m, ensure_ascii=False) for m in body["messages"]][: len(old_messages)] == old_messages
            grown = len(body["tools"]) - len(old_tools)
            whole = "".join(prompt_parts(kind, body)).encode()
            previous = "".join(prompt_parts(kind, before)).encode()
            if grown == 0:
                assert whole.startswith(previous)
            line += (f" | tools: the {len(old_tools)} sent before, unchanged" + (f", +{grown} appended" if grown else "")
                     + f" | messages: the {len(old_messages)} sent before, unchanged"
                     + (" | whole prompt of the request before is a byte prefix" if grown == 0 else ""))
        lines.append(line)
    return lines


@pytest.mark.parametrize("kind", ["openai", "anthropic"])
def test_prompt_prefix_stays_byte_identical_over_ten_turns(live_server, upstream, kind) -> None:
    key = create_api_key(f"deferred-{kind}")[1]
    answers = converse(live_server.url, key, kind)

    raw = [data for _, data in upstream.raw]
    assert len(raw) == TURNS + len(SEARCHES)  # one extra upstream round on each searching turn
    lines = check_prefixes(kind, raw)
    bodies = [json.loads(r) for r in raw]
    tool_counts = [len(b["tools"]) for b in bodies]
    assert tool_counts[0] == len(LOADED) + 1  # the two loaded tools and tool_search
    assert sum(1 for a, b in zip(tool_counts, tool_counts[1:]) if b > a) == len(SEARCHES)
    names = [t.get("name") or t["function"]["name"] for t in bodies[-1]["tools"]]
    assert names[2] == "tool_search" and "get_lyrics" in names[3:]
    found = [a["headers"].get("x-toolrouter-tools-found", "") for a in answers]
    assert [bool(f) for f in found] == [turn in SEARCHES for turn in range(1, TURNS + 1)]
    # The client only ever sees the upstream's final answers, never the search exchanges.
    assert all("tool_search" not in json.dumps(a["answer"]) for a in answers)

    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    report = "\n".join(lines + [f"tools found per turn: {found}"])
    (ARTIFACTS / f"deferred-prefix-{kind}.txt").write_text(report + "\n")
    print("\n" + report)
