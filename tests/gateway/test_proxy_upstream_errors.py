"""Upstream errors pass back with their status and body; timeouts are bounded (504); unreachable is 502."""
import httpx2 as httpx

from tests.gateway.requests_shapes import openai_body

pytestmark = __import__("pytest").mark.django_db(transaction=True)


def post(live_server, key: str, **body_extra):
    return httpx.post(f"{live_server.url}/v1/chat/completions", json=openai_body("weather", **body_extra),
                      headers={"Authorization": f"Bearer {key}"}, timeout=10)


def test_upstream_500_passes_back(live_server, upstream, our_key) -> None:
    upstream.fail_with = 500
    response = post(live_server, our_key)
    assert response.status_code == 500
    assert response.json() == {"error": {"message": "injected failure", "type": "server_error"}}


def test_upstream_error_on_a_streaming_request_passes_back_too(live_server, upstream, our_key) -> None:
    upstream.fail_with = 429
    response = post(live_server, our_key, stream=True)
    assert response.status_code == 429 and response.json()["error"]["message"] == "injected failure"


def test_upstream_timeout_is_a_504(live_server, upstream, our_key, settings) -> None:
    settings.PROXY_READ_TIMEOUT_SECONDS = 0.5
    upstream.delay = 2.0
    response = post(live_server, our_key)
    assert response.status_code == 504
    assert response.json()["error"] == "upstream_timeout"


def test_unreachable_upstream_is_a_502(live_server, our_key, settings) -> None:
    settings.PROXY_UPSTREAM_BASE_URL = "http://127.0.0.1:9/v1"  # discard port: nothing listens
    response = post(live_server, our_key)
    assert response.status_code == 502 and response.json()["error"] == "upstream_unavailable"
