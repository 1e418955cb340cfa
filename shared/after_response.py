"""Work a request does that its answer does not need (the usage log, cache writes), done after the
answer has gone out.

A WSGI server sends the answer, then closes the response, and Django runs the response's closers
then. Work queued here during a request runs there: the client no longer waits on those Redis
round trips, and the worker still does them before it takes its next request, so nothing is
left behind. Outside a request (Celery tasks, management commands, a streamed answer's own
iteration) there is no response to wait for and the work runs at once.

`AfterResponseMiddleware` (toolrouter/middleware.py) opens the queue for each request.
"""
from __future__ import annotations

import logging
from collections.abc import Callable
from contextvars import ContextVar
from typing import Any

logger = logging.getLogger(__name__)

Work = tuple[Callable[..., Any], tuple[Any, ...]]

_queue: ContextVar[list[Work] | None] = ContextVar("after_response_queue", default=None)


def after_response(function: Callable[..., Any], *args: Any) -> None:
    """Call `function(*args)` once this request's answer is sent, or now outside a request."""
    queue = _queue.get()
    if queue is None:
        _call(function, args)
    else:
        queue.append((function, args))


def open_queue() -> tuple[list[Work], Any]:
    """A new queue for the request starting on this thread, and the token that closes it."""
    queue: list[Work] = []
    return queue, _queue.set(queue)


def close_queue(token: Any) -> None:
    _queue.reset(token)


def run_queue(queue: list[Work]) -> None:
    """Everything queued, in order; one failure does not stop the rest."""
    while queue:
        function, args = queue.pop(0)
        _call(function, args)


def _call(function: Callable[..., Any], args: tuple[Any, ...]) -> None:
    try:
        function(*args)
    except Exception:
        # Django's response.close() would swallow this silently.
        logger.exception("work after the response failed: %s", getattr(function, "__qualname__", function))
