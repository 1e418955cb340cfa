"""Reading what a filter or proxy request left in the usage log."""
from __future__ import annotations

import time

import httpx2 as httpx

from usage import services as usage
from usage.models import Feedback, RequestLog


def logged_request(request_id: str, *, timeout: float = 5.0) -> RequestLog:
    """The request's row, once the door logged it (a stream logs when it ends) and the buffer drained."""
    deadline = time.monotonic() + timeout
    while True:
        usage.drain_request_buffer()
        found = RequestLog.objects.filter(request_id=request_id).first()
        if found is not None or time.monotonic() > deadline:
            assert found is not None, f"request {request_id} was not logged"
            return found
        time.sleep(0.05)


def proxy_feedback(request_id: str) -> Feedback:
    logged_request(request_id)
    return Feedback.objects.get(request_id=request_id)


def used_tools_after_a_stream(url: str, body: dict, key: str) -> list[str] | None:
    """Stream `body` through the proxy at `url` to its end, then what the proxy recorded as used
    (None: no feedback recorded, as for a stream broken off before it said which tools it called)."""
    with httpx.stream("POST", url, json=body, headers={"Authorization": f"Bearer {key}"}, timeout=10) as response:
        b"".join(response.iter_bytes())
        request_id = response.headers["x-toolrouter-request-id"]
    logged_request(request_id)
    feedback = Feedback.objects.filter(request_id=request_id).first()
    return feedback.used_tools if feedback else None
