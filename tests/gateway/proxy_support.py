"""What the proxy tests read from the fake upstream (its fixtures are in conftest.py)."""
from __future__ import annotations

from tests.support.openai_server import FakeOpenAI


def last_upstream_request(server: FakeOpenAI, path: str) -> dict:
    return [r for r in server.requests if r["path"].endswith(path)][-1]


def point_proxy_at(settings, base_url: str) -> None:
    """Both proxy routes forward to `base_url`; the first query embedding of a cold model (on the
    live server's thread, sharing the CPU with the test) must not trip the route's 1 s budget."""
    settings.PROXY_UPSTREAM_BASE_URL = base_url
    settings.PROXY_ANTHROPIC_UPSTREAM_BASE_URL = base_url
    settings.ROUTE_EMBEDDING_TIMEOUT_SECONDS = 30.0
