"""Deferred loading on POST /v1/responses with `"stream": true`: the proxy asks the upstream without streaming
(it must see whole answers to serve the searches) and sends the final answer as the Responses API's events,
which the OpenAI SDK's streaming helpers read back into the same response; the tool it calls is logged."""
from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from openai import OpenAI

from api.services import create_api_key
from tests.gateway.proxy_support import scripted_upstream
from tests.gateway.requests_shapes import responses_tools
from tests.gateway.usage_support import proxy_feedback
from tests.support.scripted_llm import ScriptedLLM

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("fresh_usage_buffers")]
TOOLS = [{**t, "defer_loading": True} for t in responses_tools()]


def search_then_call_or_say(kind: str, body: dict) -> dict:
    """Searches first; once the search answered, calls the tool found ("call:" asked) or says it is done."""
    asked = body["input"][0]["content"]
    if body["input"][-1].get("type") != "function_call_output":
        return {"call": "tool_search", "arguments": {"query": "translate text"}}
    return {"call": "translate_text", "arguments": {"input": "héllo"}} if asked.startswith("call:") else {"text": "¡Hola!"}


@pytest.fixture
def upstream(settings) -> Iterator[ScriptedLLM]:
    with scripted_upstream(settings, search_then_call_or_say) as server:
        yield server


@pytest.fixture
def client(live_server) -> OpenAI:
    return OpenAI(base_url=f"{live_server.url}/v1", api_key=create_api_key("responses-stream")[1], max_retries=0)


def test_a_streamed_call_parses_with_the_sdk_and_is_logged(client, upstream) -> None:
    raw = client.responses.with_raw_response.create(model="gpt-5", input="call: say hello in Spanish", tools=TOOLS,
                                                    stream=True)
    assert raw.headers["content-type"].startswith("text/event-stream")
    events = list(raw.parse())
    kinds = [e.type for e in events]
    assert kinds[:2] == ["response.created", "response.in_progress"] and kinds[-1] == "response.completed"
    assert [e.sequence_number for e in events] == list(range(len(events)))
    arguments = "".join(e.delta for e in events if e.type == "response.function_call_arguments.delta")
    assert json.loads(arguments) == {"input": "héllo"}
    call = events[-1].response.output[1]
    assert (call.type, call.name, call.call_id) == ("function_call", "translate_text", "call_2")
    assert all(json.loads(body)["stream"] is False for _, body in upstream.raw)
    assert proxy_feedback(raw.headers["x-toolrouter-request-id"]).used_tools == ["translate_text"]


def test_the_sdks_stream_helper_gets_the_final_response(client, upstream) -> None:
    with client.responses.stream(model="gpt-5", input="say hello in Spanish", tools=TOOLS) as stream:
        texts = [e.delta for e in stream if e.type == "response.output_text.delta"]
        final = stream.get_final_response()
    assert texts == ["¡Hola!"] and final.output_text == "¡Hola!"
    assert [item.type for item in final.output] == ["reasoning", "message"] and final.id == "resp_2"
    assert [tool.name for tool in final.tools] == [t["name"] for t in TOOLS]  # the client's, not the proxy's search


@pytest.mark.parametrize("stream", ["yes", 1])
def test_a_stream_that_is_no_boolean_goes_upstream_as_sent(client, upstream, stream) -> None:
    """Only `true` streams; any other value is the upstream's to refuse, as it is without deferred tools."""
    raw = client.responses.with_raw_response.create(model="gpt-5", input="say hello", tools=TOOLS,
                                                    extra_body={"stream": stream})
    assert raw.headers["content-type"].startswith("application/json")
    assert [json.loads(body)["stream"] for _, body in upstream.raw] == [stream, stream]
