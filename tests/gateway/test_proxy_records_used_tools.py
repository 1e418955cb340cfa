"""The proxy reads which offered tools the model called in the upstream's answer (OpenAI `tool_calls`,
Anthropic `tool_use`, streamed or not) and records them as used for that request, with the request's
offered tools, in the usage log: feedback without any effort from the client."""
import httpx2 as httpx
import pytest

from tests.gateway.requests_shapes import anthropic_body, anthropic_tools, openai_body, openai_tools
from tests.gateway.usage_support import logged_request, proxy_feedback, used_tools_after_a_stream
from toolcatalog.models import Tool
from usage.models import Feedback, FeedbackSource

pytestmark = pytest.mark.django_db(transaction=True)
ANTHROPIC = {"anthropic-version": "2023-06-01"}


def _offered(request_id: str) -> list[str]:
    return [r["name"] for r in sorted(logged_request(request_id).results, key=lambda r: r["rank"])]


def test_openai_answer_tool_calls_are_recorded_as_used(live_server, upstream, our_key) -> None:
    upstream.calls_tools = lambda body: ["get_weather"]
    response = httpx.post(f"{live_server.url}/v1/chat/completions", json=openai_body("weather in Paris tomorrow?"),
                          headers={"Authorization": f"Bearer {our_key}", "X-Toolrouter-Limit": "3"})
    assert response.status_code == 200
    assert response.json()["choices"][0]["message"]["tool_calls"][0]["function"]["name"] == "get_weather"
    request_id = response.headers["x-toolrouter-request-id"]
    row = logged_request(request_id)
    assert (row.endpoint, row.client, row.query) == ("proxy", "proxy-client", "weather in Paris tomorrow?")
    assert _offered(request_id)[0] == "get_weather" and len(row.results) == 3
    feedback = proxy_feedback(request_id)
    assert feedback.source == FeedbackSource.PROXY
    assert (feedback.used_tools, feedback.offered_and_used, feedback.used_ranks) == (["get_weather"], ["get_weather"], [1])
    assert feedback.missed == [] and len(feedback.offered_unused) == 2


def test_openai_streamed_tool_calls_are_read_as_relayed(live_server, upstream, our_key) -> None:
    upstream.stream_chunk_delay = 0.2
    upstream.calls_tools = lambda body: ["get_weather", "send_email"]
    body = openai_body("weather in Paris, then email it to Ana", stream=True)
    with httpx.stream("POST", f"{live_server.url}/v1/chat/completions", json=body,
                      headers={"Authorization": f"Bearer {our_key}"}, timeout=10) as response:
        chunks = response.iter_bytes()
        first = next(chunks)
        assert not upstream.stream_finished.is_set()  # reading the events does not hold them back
        received = first + b"".join(chunks)
        request_id = response.headers["x-toolrouter-request-id"]
    assert received.decode() == "".join(upstream.chat_completion_events(body))  # relayed unchanged
    feedback = proxy_feedback(request_id)
    assert feedback.used_tools == ["get_weather", "send_email"]
    assert set(feedback.offered_and_used) <= set(_offered(request_id))
    assert feedback.used_ranks == [_offered(request_id).index(n) + 1 for n in feedback.offered_and_used]


def test_anthropic_tool_use_blocks_are_recorded_as_used(live_server, upstream, our_key) -> None:
    upstream.calls_tools = lambda body: ["translate_text"]
    response = httpx.post(f"{live_server.url}/v1/messages", json=anthropic_body("Translate hello into Spanish"),
                          headers={**ANTHROPIC, "x-api-key": our_key})
    assert response.status_code == 200 and response.json()["content"][1]["name"] == "translate_text"
    feedback = proxy_feedback(response.headers["x-toolrouter-request-id"])
    assert (feedback.used_tools, feedback.used_ranks, feedback.source) == (["translate_text"], [1], "proxy")


def test_anthropic_streamed_tool_use_is_read_as_relayed(live_server, upstream, our_key) -> None:
    upstream.stream_chunk_delay = 0.2
    upstream.calls_tools = lambda body: ["translate_text"]
    body = anthropic_body("Translate hello into Spanish", stream=True)
    with httpx.stream("POST", f"{live_server.url}/v1/messages", json=body,
                      headers={**ANTHROPIC, "X-Toolrouter-Key": our_key, "x-api-key": "sk-ant-client"},
                      timeout=10) as response:
        chunks = response.iter_bytes()
        first = next(chunks)
        assert first.startswith(b"event: message_start") and not upstream.stream_finished.is_set()
        received = first + b"".join(chunks)
        request_id = response.headers["x-toolrouter-request-id"]
    assert received.decode() == "".join(upstream.message_events(body))
    assert proxy_feedback(request_id).used_tools == ["translate_text"]


def test_called_names_come_back_as_catalog_names(live_server, upstream, our_key) -> None:
    Tool.objects.create(name="files.read_file", description="Read a file from disk")
    upstream.calls_tools = lambda body: ["files__read_file"]
    tools = openai_tools([("files__read_file", "Read a file from disk"), ("play_music", "Play a song")])
    response = httpx.post(f"{live_server.url}/v1/chat/completions", json=openai_body("read notes.txt", tools=tools),
                          headers={"Authorization": f"Bearer {our_key}"})
    request_id = response.headers["x-toolrouter-request-id"]
    assert "files.read_file" in _offered(request_id)
    assert proxy_feedback(request_id).used_tools == ["files.read_file"]


def test_an_answer_without_tool_calls_records_none_used(live_server, upstream, our_key) -> None:
    upstream.calls_tools = lambda body: []
    response = httpx.post(f"{live_server.url}/v1/messages", json=anthropic_body("Translate hello into Spanish"),
                          headers={**ANTHROPIC, "x-api-key": our_key, "X-Toolrouter-Limit": "2"})
    feedback = proxy_feedback(response.headers["x-toolrouter-request-id"])
    assert feedback.used_tools == [] and len(feedback.offered_unused) == 2


def test_an_upstream_error_logs_the_request_without_feedback(live_server, upstream, our_key) -> None:
    upstream.fail_with = 500
    response = httpx.post(f"{live_server.url}/v1/chat/completions", json=openai_body("play some jazz"),
                          headers={"Authorization": f"Bearer {our_key}"})
    assert response.status_code == 500
    request_id = response.headers["x-toolrouter-request-id"]
    assert logged_request(request_id).endpoint == "proxy"
    assert not Feedback.objects.filter(request_id=request_id).exists()


def test_the_clients_own_feedback_replaces_the_proxys(live_server, upstream, our_key) -> None:
    upstream.calls_tools = lambda body: ["play_music"]
    tools = anthropic_tools()
    response = httpx.post(f"{live_server.url}/v1/messages", json=anthropic_body("play some jazz", tools=tools),
                          headers={**ANTHROPIC, "x-api-key": our_key, "X-Toolrouter-Limit": "2"})
    request_id = response.headers["x-toolrouter-request-id"]
    proxy_feedback(request_id)
    answer = httpx.post(f"{live_server.url}/api/v1/feedback", headers={"Authorization": f"Bearer {our_key}"},
                        json={"request_id": request_id, "used_tools": ["play_music"], "missing_tools": ["book_flight"],
                              "success": True})
    assert answer.status_code == 200, answer.text
    feedback = Feedback.objects.get(request_id=request_id)
    assert (feedback.source, feedback.success, feedback.missing_tools) == ("client", True, ["book_flight"])
    assert "book_flight" in feedback.missed


@pytest.mark.parametrize("calls,recorded", [([], None), (["get_weather"], ["get_weather"])])
def test_a_stream_broken_off_records_only_what_it_called(live_server, upstream, our_key, calls, recorded) -> None:
    upstream.calls_tools = lambda body: calls
    body = openai_body("weather in Paris tomorrow?", stream=True)
    upstream.stream_cut_after = len(upstream.chat_completion_events(body)) - 2  # no finish_reason, no [DONE]
    assert used_tools_after_a_stream(f"{live_server.url}/v1/chat/completions", body, our_key) == recorded
