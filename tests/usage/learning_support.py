"""Logged requests with feedback, for the learning tests."""
from __future__ import annotations

import uuid
from datetime import datetime

from usage import services as usage

from .records import make_record


def offered(*names: str) -> list[dict]:
    return [{"name": name, "rank": i, "score": round(1 - i / 10, 2)} for i, name in enumerate(names, start=1)]


def request_with_feedback(query: str, offered_tools: list[str], used: list[str], *, missing: list[str] = (),
                          client: str = "agent-a", created_at: datetime | None = None) -> str:
    """One routed request (logged) and the feedback the proxy or a client would record for it."""
    request_id = uuid.uuid4().hex
    usage.record_request(make_record(request_id=request_id, query=query, client=client,
                                     results=offered(*offered_tools), created_at=created_at))
    usage.drain_request_buffer()
    usage.record_feedback(request_id=request_id, used_tools=used, missing_tools=list(missing), success=True,
                          api_key_id=None)
    return request_id
