"""Building usage records for tests."""
from __future__ import annotations

import uuid
from datetime import datetime

from usage.services import RequestRecord


def make_record(**overrides) -> RequestRecord:
    fields = dict(
        request_id=uuid.uuid4().hex, endpoint="route", api_key_id=None, client="tests", toolset=None,
        query="play some jazz", strategy="bm25", confidence=0.9, fallback=False, categories=["music"],
        results=[{"name": "play_music", "rank": 1, "score": 0.9}, {"name": "search_music", "rank": 2, "score": 0.5}],
        latency_ms=3.0, tokens_selected=400, tokens_catalog=10_000, tokens_saved=9_600, session_id=None,
    )
    fields.update(overrides)
    return RequestRecord(**fields)


def at(text: str) -> datetime:
    """A UTC time from 'YYYY-MM-DD HH:MM'."""
    return datetime.fromisoformat(text + "+00:00")
