"""POST /v1/messages: Anthropic's shape, non-streaming and streaming."""
import httpx2 as httpx

from tests.gateway.proxy_support import last_upstream_request
from tests.gateway.requests_shapes import anthropic_body

pytestmark = __import__("pytest").mark.django_db(transaction=True)
HEADERS = {"anthropic-version": "2023-06-01"}


def test_message_with_our_key_as_x_api_key(live_server, upstream, our_key) -> None:
    response = httpx.post(f"{live_server.url}/v1/messages", json=anthropic_body("Translate hello into Spanish"),
                          headers={**HEADERS, "x-api-key": our_key, "X-Toolrouter-Limit": "3"})
    assert response.status_code == 200
    assert response.json() == upstream.message(anthropic_body(""))
    sent = last_upstream_request(upstream, "/messages")
    assert sent["headers"]["x-api-key"] == "sk-ant-configured"
    assert sent["headers"]["anthropic-version"] == "2023-06-01"
    assert [t["name"] for t in sent["body"]["tools"]][0] == "translate_text"
    assert len(sent["body"]["tools"]) == 3


def test_message_stream(live_server, upstream, our_key) -> None:
    upstream.stream_chunk_delay = 0.2
    body = anthropic_body("Translate hello into Spanish", stream=True)
    with httpx.stream("POST", f"{live_server.url}/v1/messages", json=body,
                      headers={**HEADERS, "X-Toolrouter-Key": our_key, "x-api-key": "sk-ant-client"},
                      timeout=10) as response:
        chunks = response.iter_bytes()
        first = next(chunks)
        assert first.startswith(b"event: message_start")
        assert not upstream.stream_finished.is_set()
        received = first + b"".join(chunks)
    assert received.decode() == "".join(upstream.message_events(body))
    assert last_upstream_request(upstream, "/messages")["headers"]["x-api-key"] == "sk-ant-client"
