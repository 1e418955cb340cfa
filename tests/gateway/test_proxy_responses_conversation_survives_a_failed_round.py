"""Deferred loading on /v1/responses with a `conversation`: the upstream appends each search round to the
conversation as it answers it, so when a later round of the turn fails (an upstream 5xx, a timeout, a broken
connection) the conversation is left holding a search call with no output, which the upstream refuses on every later
request. The client, which never saw that call, cannot answer it: the proxy must, first in the conversation's next
request, and load the tools the failed turn had found."""
from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from openai import APIStatusError, OpenAI

from api.services import create_api_key
from gateway.deferred import NOT_SEARCHED
from tests.gateway.proxy_support import scripted_upstream
from tests.gateway.requests_shapes import responses_tools
from tests.support.scripted_llm import ScriptedLLM

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("fresh_usage_buffers")]
TOOLS: list[Any] = [responses_tools()[0], *({**t, "defer_loading": True} for t in responses_tools()[1:])]


# How the round that brings the search's result fails, and the status the client then gets.
FAILURES = {"upstream error": ({"fail": 500}, 500), "timeout": ({"hang": 3}, 504),
            "broken connection": ({"drop": True}, 502)}


def search_then(failure: dict) -> Callable[[str, dict], dict]:
    """The first message searches; the round that brings the search's result fails; "thanks" is answered."""
    def script(kind: str, body: dict) -> dict:
        last = body["input"][-1]
        if last.get("type") == "function_call_output":
            return failure
        if last["content"].startswith("search:"):
            return {"call": "tool_search", "arguments": {"query": "translate text"}}
        return {"text": "you are welcome"}
    return script


@pytest.fixture(params=list(FAILURES))
def failure(request) -> tuple[dict, int]:
    return FAILURES[request.param]


@pytest.fixture
def upstream(settings, failure) -> Iterator[ScriptedLLM]:
    settings.PROXY_READ_TIMEOUT_SECONDS = 1.0  # the "timeout" round hangs for 3 s
    with scripted_upstream(settings, search_then(failure[0])) as server:
        yield server


@pytest.fixture
def client(live_server, upstream) -> OpenAI:
    return OpenAI(base_url=f"{live_server.url}/v1", api_key=create_api_key("failed-round")[1], max_retries=0)


def test_the_next_request_answers_the_search_call_the_failed_turn_left(client, upstream, failure) -> None:
    conversation = f"conv_{uuid.uuid4().hex}"  # no other test's, nor an earlier run's
    with pytest.raises(APIStatusError) as failed:
        client.responses.create(model="gpt-5", input="search:translate text", tools=TOOLS, conversation=conversation)
    assert failed.value.status_code == failure[1]  # the upstream's own error, or the proxy's 504 / 502
    client.responses.create(model="gpt-5", input="thanks", tools=TOOLS, conversation=conversation)
    searched, failing, later = (json.loads(raw) for _, raw in upstream.raw)
    assert later["input"] == [{"type": "function_call_output", "call_id": "call_1", "output": NOT_SEARCHED},
                              {"role": "user", "content": "thanks"}]
    assert later["tools"] == failing["tools"]  # the tools the failed turn had found, in the same place


def test_a_request_after_that_sends_the_output_no_more(client, upstream) -> None:
    conversation = f"conv_{uuid.uuid4().hex}"
    with pytest.raises(APIStatusError):
        client.responses.create(model="gpt-5", input="search:translate text", tools=TOOLS, conversation=conversation)
    for _ in range(2):
        client.responses.create(model="gpt-5", input="thanks", tools=TOOLS, conversation=conversation)
    assert json.loads(upstream.raw[-1][1])["input"] == [{"role": "user", "content": "thanks"}]
