"""POST /v1/responses: the OpenAI SDK's `client.responses.create`, with only its base_url changed, gets
its function tools filtered upstream (built-ins and the forced tool kept), the upstream's answer back
intact, streamed or not, and the function it called recorded as the request's used tool."""
from __future__ import annotations

import httpx2 as httpx
import pytest
from openai import OpenAI

from tests.gateway.proxy_support import last_upstream_request
from tests.gateway.requests_shapes import RESPONSES_BUILT_INS, responses_body, responses_tools
from tests.gateway.usage_support import proxy_feedback, used_tools_after_a_stream
from tests.support.openai_server import FakeOpenAI
from toolcatalog.models import Tool

pytestmark = pytest.mark.django_db(transaction=True)
TOOLS = responses_tools() + RESPONSES_BUILT_INS
FORCE_TRANSLATE = {"type": "function", "name": "translate_text"}
LIMIT_2 = {"X-Toolrouter-Limit": "2"}


def sdk(live_server, our_key: str) -> OpenAI:
    return OpenAI(base_url=f"{live_server.url}/v1", api_key=our_key, max_retries=0)


def sent_tools(upstream: FakeOpenAI) -> list[dict]:
    sent = last_upstream_request(upstream, "/responses")
    assert sent["headers"]["authorization"] == "Bearer sk-upstream-configured"  # never our key
    return sent["body"]["tools"]


def assert_filtered(tools: list[dict]) -> None:
    """The forced function, two ranked ones (the weather first), and every built-in as the client sent it."""
    functions = [t["name"] for t in tools if t["type"] == "function"]
    assert functions[:2] == ["translate_text", "get_weather"] and len(functions) == 3
    assert [t for t in tools if t["type"] != "function"] == RESPONSES_BUILT_INS


def test_sdk_responses_create_is_filtered_and_its_call_recorded(live_server, upstream, our_key) -> None:
    upstream.calls_tools = lambda body: ["get_weather"]
    raw = sdk(live_server, our_key).responses.with_raw_response.create(
        model="gpt-5", instructions="Be brief.", input="What is the weather in Paris tomorrow?", tools=TOOLS,
        tool_choice=FORCE_TRANSLATE, extra_headers=LIMIT_2)
    response = raw.parse()
    assert response.output_text == "Hello from upstream"
    call = response.output[1]
    assert (call.type, call.name, call.call_id, call.arguments) == ("function_call", "get_weather", "call_0",
                                                                    '{"input": 1}')
    assert_filtered(sent_tools(upstream))
    assert raw.headers["x-toolrouter-tools-before"] == str(len(TOOLS))
    feedback = proxy_feedback(raw.headers["x-toolrouter-request-id"])
    assert (feedback.source, feedback.used_tools, feedback.offered_and_used) == ("proxy", ["get_weather"],
                                                                                ["get_weather"])


def test_sdk_streamed_responses_are_relayed_and_their_call_recorded(live_server, upstream, our_key) -> None:
    upstream.calls_tools = lambda body: ["get_weather"]
    raw = sdk(live_server, our_key).responses.with_raw_response.create(
        model="gpt-5", input=[{"role": "user", "content": [{"type": "input_text", "text": "weather in Paris?"}]}],
        tools=TOOLS, tool_choice=FORCE_TRANSLATE, stream=True, extra_headers=LIMIT_2)
    events = list(raw.parse())
    assert [e.type for e in events] == [e.split("\n")[0].removeprefix("event: ")
                                        for e in upstream.response_events(last_upstream_request(upstream, "/responses")["body"])]
    assert "".join(e.delta for e in events if e.type == "response.output_text.delta") == "Hello from upstream"
    done = events[-1]
    assert done.type == "response.completed" and done.response.output[1].name == "get_weather"
    assert_filtered(sent_tools(upstream))
    assert proxy_feedback(raw.headers["x-toolrouter-request-id"]).used_tools == ["get_weather"]


def test_stream_is_relayed_byte_for_byte_as_it_arrives(live_server, upstream, our_key) -> None:
    upstream.stream_chunk_delay = 0.2
    upstream.calls_tools = lambda body: ["get_weather"]
    body = responses_body("weather in Paris?", stream=True)
    with httpx.stream("POST", f"{live_server.url}/v1/responses", json=body,
                      headers={"Authorization": f"Bearer {our_key}"}, timeout=10) as response:
        assert response.headers["content-type"] == "text/event-stream"
        chunks = response.iter_bytes()
        first = next(chunks)
        assert first.startswith(b"event: response.created") and not upstream.stream_finished.is_set()
        received = first + b"".join(chunks)
    sent = last_upstream_request(upstream, "/responses")["body"]
    assert received.decode() == "".join(upstream.response_events(sent))


@pytest.mark.parametrize("calls,recorded", [([], None), (["get_weather"], ["get_weather"])])
def test_a_stream_broken_off_records_only_what_it_called(live_server, upstream, our_key, calls, recorded) -> None:
    upstream.calls_tools = lambda body: calls
    body = responses_body("weather in Paris tomorrow?", stream=True)
    upstream.stream_cut_after = len(upstream.response_events(body)) - 1  # no response.completed
    assert used_tools_after_a_stream(f"{live_server.url}/v1/responses", body, our_key) == recorded


def test_a_follow_up_turn_with_function_outputs(live_server, upstream, our_key) -> None:
    upstream.calls_tools = lambda body: ["send_email"]
    response = sdk(live_server, our_key).responses.create(
        model="gpt-5", previous_response_id="resp_earlier", tools=responses_tools(), extra_headers=LIMIT_2,
        input=[{"type": "function_call_output", "call_id": "call_0", "output": "18 degrees"},
               {"role": "user", "content": "email that to Ana"}])
    assert response.output[1].name == "send_email"
    sent = last_upstream_request(upstream, "/responses")["body"]
    assert sent["previous_response_id"] == "resp_earlier" and sent["input"][0]["output"] == "18 degrees"
    assert [t["name"] for t in sent["tools"]][0] == "send_email" and len(sent["tools"]) == 2


def test_called_names_come_back_as_catalog_names(live_server, upstream, our_key) -> None:
    Tool.objects.create(name="files.read_file", description="Read a file from disk")
    upstream.calls_tools = lambda body: ["files__read_file"]
    tools = responses_tools([("files__read_file", "Read a file from disk"), ("play_music", "Play a song")])
    response = httpx.post(f"{live_server.url}/v1/responses", json=responses_body("read notes.txt", tools=tools),
                          headers={"Authorization": f"Bearer {our_key}"})
    assert response.status_code == 200
    assert proxy_feedback(response.headers["x-toolrouter-request-id"]).used_tools == ["files.read_file"]


def test_deferred_tools_with_openais_own_tool_search_reach_the_upstream_untouched(live_server, upstream,
                                                                                   our_key) -> None:
    tools = [*({**t, "defer_loading": True} for t in responses_tools()), {"type": "tool_search"}]
    response = httpx.post(f"{live_server.url}/v1/responses", json=responses_body("weather in Paris", tools=tools),
                          headers={"Authorization": f"Bearer {our_key}"})
    assert response.status_code == 200 and response.headers["x-toolrouter-passthrough"] == "upstream-tool-search"
    assert sent_tools(upstream) == tools
