"""Deferred loading on /v1/responses with a `conversation`: the upstream keeps the conversation's items (each
request's input and output appended) but no tools, so a later turn naming the same conversation (by id or as
`{"id": ...}`) gets the tools found before, for this key alone and unless the body said `"store": false`; and
nothing the upstream already has is sent again: neither a search round of this turn nor one of an earlier turn."""
from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from openai import OpenAI

from api.services import create_api_key
from tests.gateway.proxy_support import scripted_upstream
from tests.gateway.requests_shapes import responses_tools
from tests.support.scripted_llm import ScriptedLLM

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("fresh_usage_buffers")]
TOOLS: list[Any] = [responses_tools()[0], *({**t, "defer_loading": True} for t in responses_tools()[1:])]


def search_then_translate(kind: str, body: dict) -> dict:
    """A "search:" message makes the model search; the search's result makes it call the tool found."""
    last = body["input"][-1]
    if last.get("type") == "function_call_output":
        return {"call": "translate_text", "arguments": {"input": "hello"}}
    if last["content"].startswith("search:"):
        return {"call": "tool_search", "arguments": {"query": last["content"].removeprefix("search:")}}
    return {"text": "you are welcome"}


@pytest.fixture
def upstream(settings) -> Iterator[ScriptedLLM]:
    with scripted_upstream(settings, search_then_translate) as server:
        yield server


@pytest.fixture
def client(live_server, upstream) -> OpenAI:
    return OpenAI(base_url=f"{live_server.url}/v1", api_key=create_api_key("conversing")[1], max_retries=0)


def new_conversation() -> str:
    """An id no other test (nor an earlier run, whose keys Redis may still hold) used."""
    return f"conv_{uuid.uuid4().hex}"


def sent(server: ScriptedLLM) -> list[dict]:
    return [json.loads(raw) for _, raw in server.raw]


def names(body: dict) -> list[str]:
    return [t["name"] for t in body["tools"]]


def test_a_later_turn_of_the_conversation_gets_the_tools_found(client, upstream) -> None:
    conversation = new_conversation()
    client.responses.create(model="gpt-5", input="search:translate text", tools=TOOLS, conversation=conversation)
    client.responses.create(model="gpt-5", input="thanks", tools=TOOLS, conversation={"id": conversation})
    searched, found, later = sent(upstream)
    assert "translate_text" in names(found)
    assert later["tools"] == found["tools"]  # the conversation holds a call of translate_text
    assert later["input"] == [{"role": "user", "content": "thanks"}]


def test_a_search_round_sends_only_the_search_results(client, upstream) -> None:
    """The upstream appended the round's input and answer to the conversation: sent again, they would be twice."""
    conversation = new_conversation()
    client.responses.create(model="gpt-5", input="search:translate text", tools=TOOLS, conversation=conversation)
    searched, found = sent(upstream)
    assert searched["input"] == [{"role": "user", "content": "search:translate text"}]
    assert [(item.get("type"), item.get("call_id")) for item in found["input"]] == [("function_call_output", "call_1")]
    assert found["conversation"] == conversation


def test_the_same_words_later_do_not_bring_an_earlier_search_back(client, upstream) -> None:
    conversation = new_conversation()
    for _ in range(2):
        client.responses.create(model="gpt-5", input="search:translate text", tools=TOOLS, conversation=conversation)
    assert sent(upstream)[2]["input"] == [{"role": "user", "content": "search:translate text"}]


def test_only_this_key_in_this_conversation_gets_them(live_server, client, upstream) -> None:
    conversation, other = new_conversation(), new_conversation()
    client.responses.create(model="gpt-5", input="search:translate text", tools=TOOLS, conversation=conversation)
    client.responses.create(model="gpt-5", input="thanks", tools=TOOLS, conversation=other)
    stranger = OpenAI(base_url=f"{live_server.url}/v1", api_key=create_api_key("stranger")[1], max_retries=0)
    stranger.responses.create(model="gpt-5", input="thanks", tools=TOOLS, conversation=conversation)
    client.responses.create(model="gpt-5", input="thanks", tools=TOOLS, conversation=conversation)
    other_conversation, other_key, same = sent(upstream)[2:]
    assert names(other_conversation) == names(other_key) == ["get_weather", "tool_search"]
    assert "translate_text" in names(same)


def test_only_a_stored_turn_is_remembered(client, upstream) -> None:
    not_stored, stored = new_conversation(), new_conversation()
    for conversation, store in ((not_stored, False), (stored, True)):
        client.responses.create(model="gpt-5", input="search:translate text", tools=TOOLS, conversation=conversation,
                                store=store)
    for conversation in (not_stored, stored):
        client.responses.create(model="gpt-5", input="thanks", tools=TOOLS, conversation=conversation)
    after_not_stored, after_stored = sent(upstream)[4:]
    assert names(after_not_stored) == ["get_weather", "tool_search"]
    assert "translate_text" in names(after_stored)
