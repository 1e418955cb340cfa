"""Reads for learning from traffic: the suggestion list, the decisions, the dashboard's learning-loop
card, and the usage facts the catalog doctor needs (traffic confusion, tools never offered).

"Recall on confirmed traffic" is measured on requests with feedback: of the tools a request
needed (used, or reported missing), the share that had been offered, and the rank the used ones
had. Finished days come from the daily rollups and the rest from the feedback table (ranks are
stored with it), so it stays fast on a large log and reaches past retention; with the dashboard's
client filter, it reads the feedback the hit-rate card counts for that client.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import connection
from django.db.models import Count, Q
from django.utils import timezone

from .models import DailyToolUsage, DailyUsage, Feedback, RequestLog, Suggestion, SuggestionKind, SuggestionStatus
from .selectors import FeedbackTotals, UsageRange, feedback_total, range_feedback_series

PAGE_SIZE = 100


def _fetchall(sql: str, params: list[Any] | dict[str, Any]) -> list[tuple]:
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall()


# --- the suggestion page -------------------------------------------------------------------------

@dataclass
class SuggestionCounts:
    pending: int = 0
    accepted: int = 0
    rejected: int = 0
    by_kind: dict[str, int] = field(default_factory=dict)  # pending ones


def suggestion_counts() -> SuggestionCounts:
    counts = SuggestionCounts()
    for status, kind, n in (Suggestion.objects.values("status", "kind").annotate(n=Count("pk"))
                            .values_list("status", "kind", "n")):
        setattr(counts, status, getattr(counts, status) + n)
        if status == SuggestionStatus.PENDING:
            counts.by_kind[kind] = counts.by_kind.get(kind, 0) + n
    return counts


def pending_suggestions(kind: str | None = None, limit: int = PAGE_SIZE) -> list[Suggestion]:
    """Most evidence first: needed-and-missing before ranked-low before confirmed before weak."""
    rows = Suggestion.objects.filter(status=SuggestionStatus.PENDING).select_related("tool")
    if kind:
        rows = rows.filter(kind=kind)
    order: dict[str, int] = {SuggestionKind.MISSING: 0, SuggestionKind.RANKED_LOW: 1, SuggestionKind.CONFIRMED: 2,
             SuggestionKind.WEAK: 3}
    found = list(rows.order_by("-requests", "-last_seen", "pk")[:limit])
    return sorted(found, key=lambda s: (order.get(s.kind, 9), -s.requests, -s.last_seen.timestamp(), s.pk))


def likely_tools_for(query_hashes: list[str]) -> dict[str, list[str]]:
    """Per logged query (by hash), the likely tools its pending weak-match suggestions propose, best first."""
    found: dict[str, list[str]] = {}
    for query_hash, tool in (Suggestion.objects.filter(query_hash__in=query_hashes, kind=SuggestionKind.WEAK,
                                                       status=SuggestionStatus.PENDING)
                             .order_by("pk").values_list("query_hash", "tool__name")):
        found.setdefault(query_hash, []).append(tool)
    return found


def recent_decisions(limit: int = 30) -> list[Suggestion]:
    """The audit trail: who or what decided, when, on which evidence."""
    return list(Suggestion.objects.exclude(status=SuggestionStatus.PENDING).select_related("tool", "decided_by")
                .order_by("-decided_at", "-pk")[:limit])


# --- the dashboard's learning-loop card -----------------------------------------------------------

@dataclass
class RecallPoint:
    start: datetime
    requests: int  # with a needed tool
    recall: float | None  # share of needed tools that were offered
    mean_rank: float | None  # of the used tools that were offered


@dataclass
class LearningLoop:
    evidence: int = 0  # requests with feedback in the range
    evidence_proxy: int = 0  # of which read from answers by the proxy
    needed: int = 0  # requests that needed at least one tool
    recall: float | None = None
    mean_rank: float | None = None
    # Suggestions belong to the catalog, not to a client: these two count every client's evidence.
    pending: int = 0
    accepted_this_week: int = 0
    automatic: bool = False
    client: str | None = None  # the client the evidence and recall are of (None: all clients)
    series: list[RecallPoint] = field(default_factory=list)


def learning_loop(r: UsageRange, now: datetime | None = None, *,
                  feedback_series: list[tuple[datetime, FeedbackTotals]] | None = None) -> LearningLoop:
    """Evidence collected, suggestions pending, accepted this week, and recall on confirmed traffic
    over the range (one point per hour or day, as the dashboard's charts). Evidence and recall are of the
    range's client when it has one, as the hit-rate card beside it; the suggestion counts are the catalog's.
    Finished days come from the rollups, as the other cards' do, so the card outlives retention.
    `feedback_series`: the range's `range_feedback_series`, when the caller (the dashboard) has read it."""
    now = now or timezone.now()
    loop = LearningLoop(automatic=settings.LEARNING_AUTO_ACCEPT, client=r.client)
    series = range_feedback_series(r) if feedback_series is None else feedback_series
    loop.series = [RecallPoint(start, figures.feedback_needing_tools, figures.recall, figures.mean_rank)
                   for start, figures in series]
    total = feedback_total(series)
    loop.evidence, loop.evidence_proxy, loop.needed = total.feedback, total.feedback_proxy, total.feedback_needing_tools
    loop.recall, loop.mean_rank = total.recall, total.mean_rank
    counts = Suggestion.objects.aggregate(
        pending=Count("pk", filter=Q(status=SuggestionStatus.PENDING)),
        accepted=Count("pk", filter=Q(status=SuggestionStatus.ACCEPTED, decided_at__gte=now - timedelta(days=7))))
    loop.pending, loop.accepted_this_week = counts["pending"], counts["accepted"]
    return loop


# --- facts for the catalog doctor ---------------------------------------------------------------

@dataclass
class TrafficConfusion:
    offered_first: str  # what the engine ranked first
    used: str  # what the model used instead
    requests: int


def traffic_confusions(since: datetime, min_requests: int = 2, limit: int = 100) -> list[TrafficConfusion]:
    """Pairs (A, B) where requests offered A first and the model used B, not A."""
    rows = _fetchall(
        """SELECT l.results->0->>'name', u.tool, count(*)
           FROM routing_feedback f JOIN routing_requestlog l ON l.request_id = f.request_id,
                unnest(f.used_tools) AS u(tool)
           WHERE l.created_at >= %s AND jsonb_array_length(l.results) > 0
             AND NOT ((l.results->0->>'name') = ANY(f.used_tools))
           GROUP BY 1, 2 HAVING count(*) >= %s ORDER BY 3 DESC, 1, 2 LIMIT %s""",
        [since, min_requests, limit],
    )
    return [TrafficConfusion(a, b, n) for a, b, n in rows if a and b and a != b]


@dataclass
class OfferedInWindow:
    since: datetime
    requests: int
    offered: set[str]


def offered_since(since: datetime, now: datetime | None = None) -> OfferedInWindow:
    """Every tool offered at least once since `since`: finished days from the rollups, the rest raw."""
    now = now or timezone.now()
    first_day = since.date()
    rolled = DailyUsage.objects.filter(client=None, day__gte=first_day, day__lt=now.date()).order_by("-day").first()
    raw_start = since
    offered: set[str] = set()
    requests = 0
    if rolled is not None:
        raw_start = max(since, datetime(rolled.day.year, rolled.day.month, rolled.day.day, tzinfo=now.tzinfo)
                        + timedelta(days=1))
        offered.update(DailyToolUsage.objects.filter(client=None, day__gte=first_day, day__lte=rolled.day, offered__gt=0)
                       .values_list("tool", flat=True).distinct())
        requests += sum(DailyUsage.objects.filter(client=None, day__gte=first_day, day__lte=rolled.day)
                        .values_list("requests", flat=True))
    offered.update(name for (name,) in _fetchall(
        f"""SELECT DISTINCT r->>'name' FROM {RequestLog._meta.db_table} l, jsonb_array_elements(l.results) r
            WHERE l.created_at >= %s""", [raw_start]))
    requests += RequestLog.objects.filter(created_at__gte=raw_start).count()
    return OfferedInWindow(since, requests, offered)


def feedback_count_since(since: datetime) -> int:
    return Feedback.objects.filter(created_at__gte=since).count()
