"""POST /v1/chat/completions: a client that only changes its base_url gets filtered tools upstream
and the upstream's answer back unchanged, streamed as it arrives."""

import httpx2 as httpx
from openai import OpenAI

from tests.gateway.proxy_support import last_upstream_request
from tests.gateway.requests_shapes import openai_body, openai_tools

pytestmark = __import__("pytest").mark.django_db(transaction=True)


def test_openai_sdk_with_only_base_url_changed(live_server, upstream, our_key) -> None:
    client = OpenAI(base_url=f"{live_server.url}/v1", api_key=our_key, max_retries=0)
    completion = client.chat.completions.create(model="gpt-4o", messages=[
        {"role": "user", "content": "What is the weather like in San Francisco?"}], tools=openai_tools())
    assert completion.choices[0].message.tool_calls[0].function.name == "noop"
    sent = last_upstream_request(upstream, "/chat/completions")
    assert sent["headers"]["authorization"] == "Bearer sk-upstream-configured"  # never our key
    names = [t["function"]["name"] for t in sent["body"]["tools"]]
    assert names[0] == "get_weather" and len(names) == 5


def test_answer_passes_back_unchanged_with_filter_headers(live_server, upstream, our_key) -> None:
    response = httpx.post(f"{live_server.url}/v1/chat/completions",
                          json=openai_body("send an email to Ana"), headers={"X-Toolrouter-Key": our_key,
                                                                             "Authorization": "Bearer sk-client-own",
                                                                             "X-Toolrouter-Limit": "2"})
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/json"
    assert response.json()["id"] == "chatcmpl-test" and response.json()["object"] == "chat.completion"
    assert response.headers["x-toolrouter-tools-before"] == "8"
    assert response.headers["x-toolrouter-tools-after"] == "2"
    sent = last_upstream_request(upstream, "/chat/completions")
    assert sent["headers"]["authorization"] == "Bearer sk-client-own"  # the client's own key goes upstream
    assert "x-toolrouter-key" not in {k.lower() for k in sent["headers"]}
    assert [t["function"]["name"] for t in sent["body"]["tools"]][0] == "send_email"


def test_stream_is_relayed_chunk_by_chunk_as_it_arrives(live_server, upstream, our_key) -> None:
    upstream.stream_chunk_delay = 0.3
    body = openai_body("play some jazz", stream=True)
    expected = "".join(upstream.chat_completion_events(body))
    with httpx.stream("POST", f"{live_server.url}/v1/chat/completions", json=body,
                      headers={"Authorization": f"Bearer {our_key}"}, timeout=10) as response:
        assert response.status_code == 200
        assert response.headers["content-type"] == "text/event-stream"
        chunks = response.iter_bytes()
        first = next(chunks)
        assert first.startswith(b"data: ")
        assert not upstream.stream_finished.is_set()  # the first event arrived before the upstream finished
        rest = b"".join(chunks)
    assert (first + rest).decode() == expected  # every event, in order, byte for byte
    assert upstream.stream_finished.is_set()


def test_openai_sdk_streaming(live_server, upstream, our_key) -> None:
    client = OpenAI(base_url=f"{live_server.url}/v1", api_key=our_key, max_retries=0)
    stream = client.chat.completions.create(model="gpt-4o", stream=True, tools=openai_tools(),
                                            messages=[{"role": "user", "content": "play some jazz"}])
    text = "".join(chunk.choices[0].delta.content or "" for chunk in stream if chunk.choices)
    assert text == "Hello from upstream"


def test_unknown_key_is_refused(live_server, upstream) -> None:
    response = httpx.post(f"{live_server.url}/v1/chat/completions", json=openai_body("hi"),
                          headers={"Authorization": "Bearer not-a-toolrouter-key"})
    assert response.status_code == 401 and response.json()["error"] == "unauthenticated"
    assert upstream.requests == []
    response = httpx.post(f"{live_server.url}/v1/chat/completions", json=openai_body("hi"),
                          headers={"X-Toolrouter-Key": "wrong"})
    assert response.status_code == 401
