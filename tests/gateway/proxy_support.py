"""What the proxy tests read from the fake upstream (its fixtures are in conftest.py)."""
from __future__ import annotations

from tests.support.openai_server import FakeOpenAI


def last_upstream_request(server: FakeOpenAI, path: str) -> dict:
    return [r for r in server.requests if r["path"].endswith(path)][-1]
