"""Reading what a filter or proxy request left in the usage log."""
from __future__ import annotations

import time

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
