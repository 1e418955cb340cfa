"""What the proxy tests read from the fake upstream (its fixtures are in conftest.py)."""
from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

from tests.support.openai_server import FakeOpenAI
from tests.support.scripted_llm import ScriptedLLM


def last_upstream_request(server: FakeOpenAI, path: str) -> dict:
    return [r for r in server.requests if r["path"].endswith(path)][-1]


def point_proxy_at(settings, base_url: str) -> None:
    """Both proxy routes forward to `base_url`; the first query embedding of a cold model (on the
    live server's thread, sharing the CPU with the test) must not trip the route's 1 s budget."""
    settings.PROXY_UPSTREAM_BASE_URL = base_url
    settings.PROXY_ANTHROPIC_UPSTREAM_BASE_URL = base_url
    settings.ROUTE_EMBEDDING_TIMEOUT_SECONDS = 30.0


@contextmanager
def scripted_upstream(settings, script: Callable[[str, dict], dict]) -> Iterator[ScriptedLLM]:
    """A scripted LLM (tests/support/scripted_llm.py) that both proxy routes forward to while it runs."""
    with ScriptedLLM(script) as server:
        point_proxy_at(settings, server.base_url)
        yield server
