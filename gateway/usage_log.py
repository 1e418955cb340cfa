"""The filter gateway's and the proxy's entries in the usage log, like the route endpoint's.

Each request is logged with what it offered (the tools sent on, with their catalog names and
ranks). The proxy also sees the answer, so it logs which of the request's tools the model
called: `used_tools`, mapped to catalog names, which the usage log keeps as the request's
feedback (source "proxy"). A streamed answer is read as it is relayed (`reading`), and the
request is logged when the stream ends, however it ends. With deferred loading
(gateway/deferred.py) what was offered is the tools loaded from the start and those the model's
searches loaded; the proxy's own search tool is not one of the request's tools.
"""
from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from django.conf import settings

from engine import count_text, definition_json
from usage import services as usage

from . import deferred, filtering, proxy, tool_calls

logger = logging.getLogger(__name__)


class LoggedRequest:
    """One filter or proxy request on its way to the usage log."""

    def __init__(self, outcome: filtering.FilterOutcome, api_key: Any, endpoint: str, started: float) -> None:
        self.outcome = outcome
        self.api_key = api_key
        self.endpoint = endpoint
        self.latency_ms = round((time.perf_counter() - started) * 1000, 2)  # our part, not the upstream's
        self.logged = False

    def log(self, called: list[str] | None = None) -> None:
        """Write the record once; `called`: the tool names the answer calls (None: not seen)."""
        if self.logged:
            return
        self.logged = True
        outcome = self.outcome
        used = None if called is None else list(dict.fromkeys(outcome.catalog_names.get(n, n) for n in called))
        usage.record_request(usage.RequestRecord(
            request_id=outcome.request_id, endpoint=self.endpoint,
            api_key_id=self.api_key.pk if self.api_key else None, client=self.api_key.name if self.api_key else "",
            toolset=None, query=outcome.query,
            strategy=outcome.strategy or f"passthrough:{outcome.passthrough or outcome.fail_safe}",
            confidence=outcome.confidence, fallback=bool(outcome.passthrough or outcome.fail_safe or outcome.fallback),
            categories=[], results=outcome.offered, latency_ms=self.latency_ms,
            tokens_selected=outcome.tokens_after, tokens_catalog=outcome.tokens_before,
            tokens_saved=outcome.tokens_saved, session_id=None, used_tools=used,
        ))

    @contextmanager
    def unless_answered(self) -> Iterator[None]:
        """An upstream that fails (timeout, unreachable) still leaves the request in the log."""
        try:
            yield
        except Exception:
            self.log()
            raise

    def log_answer(self, kind: tool_calls.Kind, status: int, body: bytes, ignore: str | None = None) -> None:
        """A whole answer: a successful one says which tools were called (`ignore`: not one of the request's)."""
        called = tool_calls.called_in_answer(kind, body) if 200 <= status < 300 else None
        self.log(None if called is None else [name for name in called if name != ignore])

    def reading(self, kind: tool_calls.Kind, reply: proxy.UpstreamReply) -> proxy.UpstreamReply:
        """The reply, logged: at once when whole, when its stream ends when streamed."""
        if reply.chunks is None:
            self.log_answer(kind, reply.status, reply.content)
        else:
            reply.chunks = self._relay_and_read(kind, reply.chunks)
        return reply

    def _relay_and_read(self, kind: tool_calls.Kind, chunks: Iterator[bytes]) -> Iterator[bytes]:
        """Pass every chunk on first, then read it; log when the stream ends (or the client leaves)."""
        reader = tool_calls.StreamedToolCalls(kind)
        try:
            for chunk in chunks:
                yield chunk
                reader.feed(chunk)
        finally:
            try:
                called = reader.close()
                # A tool it called is evidence even if the stream broke later; "called none" only from a whole answer.
                self.log(called if called or reader.finished else None)
            except Exception:  # noqa: BLE001 - the stream was delivered; logging must not break its end
                logger.exception("usage log: could not log proxied request %s", self.outcome.request_id)


def deferred_outcome(plan: deferred.Plan, options: filtering.FilterOptions,
                     turn: deferred.Turn | None = None) -> filtering.FilterOutcome:
    """A deferred-loading turn as the usage log sees it: offered = the request's own tools loaded from
    the start, then those its searches loaded, in the order they were sent (the provider's built-ins,
    never ranked, are not listed, as the filter does not list them)."""
    by_name = {filtering.tool_name(t): t for t in plan.deferred}
    sent = plan.loaded + [by_name[name] for name in (turn.loaded_deferred if turn else []) if name in by_name]
    every = plan.loaded + plan.deferred
    names = [filtering.tool_name(t) for t in every]
    catalog = dict(zip(names, filtering.request_names_in_catalog(names)))
    tokens_before = count_text(definition_json(every))
    return filtering.FilterOutcome(
        b"", tools_before=len(every), tools_after=len(sent), tokens_before=tokens_before,
        tokens_after=count_text(definition_json(sent)), strategy="deferred",
        query=filtering.find_query(plan.body, options)[: settings.API_MAX_QUERY_CHARS], catalog_names=catalog,
        offered=[{"name": catalog.get(filtering.tool_name(t), filtering.tool_name(t)), "rank": rank, "score": None}
                 for rank, t in enumerate(filtering.own_tools(sent, plan.kind == "responses"), start=1)],
    )
