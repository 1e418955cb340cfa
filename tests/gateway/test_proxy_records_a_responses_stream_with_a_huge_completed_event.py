"""A Responses stream ends with `response.completed`, which repeats the request's `instructions` and every
tool: over MAX_LINE_BYTES it is not kept, yet the stream did finish, so an answer that called no tool is
recorded as "called none" (used_tools []), not as an answer never seen."""
from __future__ import annotations

import httpx2 as httpx
import pytest

from gateway.tool_calls import MAX_LINE_BYTES, StreamedToolCalls
from tests.gateway.requests_shapes import responses_body
from tests.gateway.usage_support import logged_request
from tests.support.openai_server import FakeOpenAI
from usage.models import Feedback

LONG_INSTRUCTIONS = "Answer in the house style. " * (MAX_LINE_BYTES // 20)


def repeating_long_instructions(upstream: FakeOpenAI) -> None:
    whole = upstream.response
    upstream.response = lambda body: {**whole(body), "instructions": LONG_INSTRUCTIONS}  # type: ignore[method-assign]


@pytest.mark.django_db(transaction=True)
def test_a_stream_calling_no_tool_is_recorded_as_called_none(live_server, upstream, our_key) -> None:
    repeating_long_instructions(upstream)
    body = responses_body("weather in Paris tomorrow?", stream=True)
    with httpx.stream("POST", f"{live_server.url}/v1/responses", json=body,
                      headers={"Authorization": f"Bearer {our_key}"}, timeout=30) as response:
        received = b"".join(response.iter_bytes())
        request_id = response.headers["x-toolrouter-request-id"]
    assert b"event: response.completed" in received and len(received) > 2 * MAX_LINE_BYTES
    logged_request(request_id)
    feedback = Feedback.objects.filter(request_id=request_id).first()
    assert feedback is not None and feedback.used_tools == []


def test_the_data_line_alone_says_the_stream_ended() -> None:
    """Without `event:` lines (they are optional in server-sent events) the data's start says it."""
    upstream = FakeOpenAI()  # only its answer builders: not started
    upstream.calls_tools = lambda body: ["get_weather"]
    repeating_long_instructions(upstream)
    events = [event.split("\n", 1)[1] for event in upstream.response_events(responses_body("weather?"))]
    stream = "".join(events).encode()
    reader = StreamedToolCalls("responses")
    for start in range(0, len(stream), 65_536):
        reader.feed(stream[start:start + 65_536])
    assert reader.close() == ["get_weather"] and reader.finished
