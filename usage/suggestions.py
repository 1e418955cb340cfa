"""Learning from traffic: logged queries proposed as hypothetical queries of the tools they needed.

Evidence is a logged request with feedback (the proxy's reading of the model's answer, or a
client's `POST /api/v1/feedback`): request -> offered (with ranks) -> used or missing. Per
(query, tool) the evidence is summed over the retention window and classified:

- `missing`: the tool was needed and not offered (used without being offered, or reported in
  `missing_tools`); proposed after LEARNING_MIN_MISSES such requests;
- `ranked_low`: it was used but never ranked better than LEARNING_LOW_RANK; same threshold;
- `confirmed`: it was offered in the top LEARNING_LOW_RANK and used; proposed once
  LEARNING_MIN_CONFIRMATIONS requests agree (real requests that reached the right tool are the
  best hypothetical queries a catalog can get);
- `weak`: no feedback, but the query found nothing or only low-confidence tools, at least
  LEARNING_MIN_WEAK_REQUESTS times: its likely tools (given by the caller, e.g. the routing
  engine's semantic ranking) are proposed, one suggestion each.

A request that needed several tools teaches each one only the part of it that asked for that
tool (usage/query_parts.py): the whole text would pull every one of them towards the others'
topics (on seal-dev's multi-tool requests, whole texts lowered recall on unseen requests, parts
did not).

Only queries stored as text are used (USAGE_QUERY_STORAGE=store): with `hash` or `drop` nothing
is learned, and the text of a suggestion never outlives the evidence's retention unless a
curator accepted it. A rejected (tool, query) is never proposed again. Accepting makes an
approved hypothetical query (source "traffic"), saved through the catalog's saving service, so it
is embedded and routes like a curated one. The automatic mode (LEARNING_AUTO_ACCEPT, off by
default) accepts what has at least LEARNING_AUTO_MIN_REQUESTS requests from LEARNING_AUTO_MIN_CLIENTS
clients, at most LEARNING_AUTO_MAX_PER_TOOL per tool; every decision keeps who or what made it,
when, and the evidence it saw (`decided_by`, `decided_via`, `decided_at`, `decision_evidence`).
"""
from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import connection, transaction
from django.db.models.functions import Lower
from django.utils import timezone

from toolcatalog.models import HypotheticalQuery, QuerySource, Tool

from . import services
from .models import Suggestion, SuggestionKind, SuggestionStatus
from .query_parts import part_per_tool

logger = logging.getLogger(__name__)

MAX_QUERY_CHARS = 500  # HypotheticalQuery.text
MAX_WEAK_QUERIES = 50  # per refresh, most frequent first
WEAK_CANDIDATES = 3
# (texts) -> {text: likely tool names, best first}; given by the routing layer above this app.
LikelyTools = Callable[[list[str]], dict[str, list[str]]]


@dataclass
class Evidence:
    """What the log says about one (query, tool)."""

    query_hash: str
    tool: str
    text: str
    requests: int
    clients: list[str]
    first_seen: datetime
    last_seen: datetime
    best_rank: int | None  # None: never offered
    not_offered: int
    ranked_low: int  # requests where it was not offered or ranked past LEARNING_LOW_RANK
    alternatives: list[str] = field(default_factory=list)
    kind: str = ""

    def snapshot(self) -> dict[str, Any]:
        return {"requests": self.requests, "clients": self.clients, "first_seen": self.first_seen.isoformat(),
                "last_seen": self.last_seen.isoformat(), "best_rank": self.best_rank,
                "not_offered": self.not_offered, "kind": self.kind}


@dataclass
class RefreshReport:
    proposed: int = 0  # new pending suggestions
    updated: int = 0
    forgotten: int = 0  # pending ones whose evidence aged out
    auto_accepted: int = 0
    paused: str = ""  # why nothing was learned, when nothing could be

    def as_dict(self) -> dict[str, Any]:
        return dict(vars(self))


def normalised(text: str) -> str:
    return " ".join((text or "").split())


def learning_paused_reason() -> str:
    if settings.USAGE_QUERY_STORAGE != "store":
        return (f"USAGE_QUERY_STORAGE is {settings.USAGE_QUERY_STORAGE!r}: queries are not stored as text, "
                "so nothing is learned from them.")
    return ""


# --- evidence from the log --------------------------------------------------------------------

_EVIDENCE_SQL = """
WITH evidence AS (
    SELECT l.query_hash, l.query, l.client, l.created_at, x.tool, x.rank, f.offered_and_used || f.missed AS needed
    FROM routing_feedback f JOIN routing_requestlog l ON l.request_id = f.request_id,
         unnest(f.offered_and_used, f.used_ranks) AS x(tool, rank)
    WHERE l.created_at >= %(since)s AND l.query IS NOT NULL AND l.query_hash <> ''
      AND cardinality(f.used_ranks) = cardinality(f.offered_and_used)
  UNION ALL
    SELECT l.query_hash, l.query, l.client, l.created_at, m.tool, NULL, f.offered_and_used || f.missed
    FROM routing_feedback f JOIN routing_requestlog l ON l.request_id = f.request_id,
         unnest(f.missed) AS m(tool)
    WHERE l.created_at >= %(since)s AND l.query IS NOT NULL AND l.query_hash <> ''
)
SELECT query_hash, tool, max(query), count(*), array_agg(DISTINCT client), min(created_at), max(created_at),
       min(rank), count(*) FILTER (WHERE rank IS NULL), count(*) FILTER (WHERE rank IS NULL OR rank > %(low)s),
       (array_agg(array_to_string(needed, ' ') ORDER BY cardinality(needed) DESC))[1]  -- names have no spaces
FROM evidence GROUP BY query_hash, tool
"""


def evidence_since(since: datetime) -> list[Evidence]:
    """Per (query, tool): the logged requests with feedback that needed the tool, since `since`;
    for a request that needed several tools, per (part of the query asking for the tool, tool)."""
    with connection.cursor() as cursor:
        cursor.execute(_EVIDENCE_SQL, {"since": since, "low": settings.LEARNING_LOW_RANK})
        rows = cursor.fetchall()
    rows = [(*row[:10], (row[10] or "").split()) for row in rows]
    descriptions = dict(Tool.objects.filter(name__in={t for row in rows for t in row[10]})
                        .values_list("name", "description"))
    merged: dict[tuple[str, str], Evidence] = {}
    parts: dict[tuple[str, tuple[str, ...]], dict[str, str]] = {}  # one cut per request, not one per tool
    for query_hash, tool, text, requests, clients, first, last, best_rank, not_offered, ranked_low, needed in rows:
        text = normalised(text)
        together = tuple(t for t in dict.fromkeys(needed) if t in descriptions)
        if len(together) > 1:
            if (query_hash, together) not in parts:
                parts[(query_hash, together)] = part_per_tool(text, {t: descriptions[t] for t in together})
            part = parts[(query_hash, together)].get(tool)
            if part is None:
                continue  # no part of the request asks for this tool in words it shares with it
            text, query_hash = normalised(part), services.query_hash(part)
        if len(text) > MAX_QUERY_CHARS:
            continue  # longer than a hypothetical query may be
        evidence = Evidence(query_hash, tool, text, requests, sorted(c for c in clients if c is not None),
                            first, last, best_rank, not_offered, ranked_low)
        same = merged.get((query_hash, tool))
        merged[(query_hash, tool)] = evidence if same is None else _combined(same, evidence)
    for evidence in merged.values():
        evidence.kind = _kind(evidence)
    return list(merged.values())


def _combined(a: Evidence, b: Evidence) -> Evidence:
    ranks = [r for r in (a.best_rank, b.best_rank) if r is not None]
    return Evidence(a.query_hash, a.tool, a.text, a.requests + b.requests, sorted(set(a.clients) | set(b.clients)),
                    min(a.first_seen, b.first_seen), max(a.last_seen, b.last_seen), min(ranks) if ranks else None,
                    a.not_offered + b.not_offered, a.ranked_low + b.ranked_low)


def _kind(evidence: Evidence) -> str:
    if evidence.not_offered:
        return SuggestionKind.MISSING
    if evidence.best_rank is not None and evidence.best_rank > settings.LEARNING_LOW_RANK:
        return SuggestionKind.RANKED_LOW
    return SuggestionKind.CONFIRMED


def _worth_proposing(evidence: Evidence) -> bool:
    if evidence.kind == SuggestionKind.CONFIRMED:
        return evidence.requests >= settings.LEARNING_MIN_CONFIRMATIONS
    return evidence.ranked_low >= settings.LEARNING_MIN_MISSES


_WEAK_SQL = """
SELECT l.query_hash, max(l.query), count(*), array_agg(DISTINCT l.client), min(l.created_at), max(l.created_at)
FROM routing_requestlog l
WHERE l.created_at >= %(since)s AND l.query IS NOT NULL AND l.query_hash <> '' AND char_length(l.query) <= %(max_chars)s
  AND (jsonb_array_length(l.results) = 0 OR l.confidence < %(low_confidence)s)
  AND NOT EXISTS (SELECT 1 FROM routing_feedback f WHERE f.request_id = l.request_id)
GROUP BY l.query_hash HAVING count(*) >= %(min_requests)s
ORDER BY count(*) DESC, max(l.created_at) DESC LIMIT %(limit)s
"""


def weak_evidence(since: datetime, likely_tools: LikelyTools) -> list[Evidence]:
    """Frequent queries that found nothing or only weak matches, each with its likely tools."""
    with connection.cursor() as cursor:
        cursor.execute(_WEAK_SQL, {"since": since, "max_chars": MAX_QUERY_CHARS,
                                   "low_confidence": settings.USAGE_LOW_CONFIDENCE,
                                   "min_requests": settings.LEARNING_MIN_WEAK_REQUESTS, "limit": MAX_WEAK_QUERIES})
        rows = cursor.fetchall()
    if not rows:
        return []
    texts = [normalised(row[1]) for row in rows]
    # Queries ranked at an earlier refresh keep their likely tools: only new ones cost a ranking.
    candidates: dict[str, list[str]] = {}
    for query_hash, tool, others in (Suggestion.objects.filter(kind=SuggestionKind.WEAK,
                                                               query_hash__in=[row[0] for row in rows])
                                     .order_by("pk").values_list("query_hash", "tool__name", "alternatives")):
        candidates.setdefault(query_hash, [tool, *others])
    candidates = {text: candidates[row[0]] for row, text in zip(rows, texts) if row[0] in candidates}
    new = [text for text in texts if text not in candidates]
    if new:
        try:
            candidates.update(likely_tools(new))
        except Exception:  # noqa: BLE001 - a ranking failure (provider down) must not stop the rest of the refresh
            logger.warning("learning: could not rank the weak queries' likely tools", exc_info=True)
    found = []
    for (query_hash, _, requests, clients, first, last), text in zip(rows, texts):
        tools = list(dict.fromkeys(candidates.get(text, [])))[:WEAK_CANDIDATES]
        for tool in tools:
            found.append(Evidence(query_hash, tool, text, requests, sorted(c for c in clients if c is not None),
                                  first, last, None, 0, 0, alternatives=[t for t in tools if t != tool],
                                  kind=SuggestionKind.WEAK))
    return found


# --- refreshing the suggestions ---------------------------------------------------------------

def retention_start(now: datetime | None = None) -> datetime:
    return (now or timezone.now()) - timedelta(days=settings.USAGE_RETENTION_DAYS)


def refresh_suggestions(now: datetime | None = None, likely_tools: LikelyTools | None = None) -> RefreshReport:
    """Bring the suggestions up to date with the log; then, in automatic mode, accept what qualifies."""
    now = now or timezone.now()
    report = RefreshReport()
    report.forgotten = forget_aged_out(now)
    report.paused = learning_paused_reason()
    if report.paused:
        return report
    since = retention_start(now)
    found = [e for e in evidence_since(since) if _worth_proposing(e)]
    if likely_tools is not None:
        confirmed = {e.query_hash for e in found}
        found += [e for e in weak_evidence(since, likely_tools) if e.query_hash not in confirmed]
    report.proposed, report.updated = _store(found)
    report.forgotten += _forget_already_known()
    if settings.LEARNING_AUTO_ACCEPT:
        report.auto_accepted = auto_accept(now)
    return report


def _store(found: list[Evidence]) -> tuple[int, int]:
    """Upsert one row per (tool, query): new ones pending; decided ones keep their decision."""
    tools = dict(Tool.objects.filter(name__in={e.tool for e in found}, enabled=True).values_list("name", "pk"))
    found = [e for e in found if e.tool in tools and e.text]
    known = _existing_queries({tools[e.tool] for e in found})
    curated = _curated_texts({e.text for e in found if e.kind == SuggestionKind.WEAK})
    found = [e for e in found if (tools[e.tool], e.text.casefold()) not in known
             and not (e.kind == SuggestionKind.WEAK and e.text.casefold() in curated)]
    existing = {(s.tool_id, s.query_hash): s for s in
                Suggestion.objects.filter(tool_id__in={tools[e.tool] for e in found},
                                          query_hash__in={e.query_hash for e in found})}
    new, changed = [], []
    for evidence in found:
        row = existing.get((tools[evidence.tool], evidence.query_hash))
        if row is None:
            row = Suggestion(tool_id=tools[evidence.tool], query_hash=evidence.query_hash)
            new.append(row)
        else:
            changed.append(row)
        _apply(row, evidence)
    with transaction.atomic():
        Suggestion.objects.bulk_create(new, batch_size=1000, ignore_conflicts=True)
        Suggestion.objects.bulk_update(changed, ["text", "kind", "requests", "clients", "first_seen", "last_seen",
                                                 "best_rank", "not_offered", "alternatives", "updated_at"],
                                       batch_size=1000)
    return len(new), len(changed)


def _apply(row: Suggestion, evidence: Evidence) -> None:
    row.text = row.text or evidence.text[:MAX_QUERY_CHARS]
    row.kind = evidence.kind
    row.requests = evidence.requests
    row.clients = evidence.clients[:20]
    row.first_seen, row.last_seen = evidence.first_seen, evidence.last_seen
    row.best_rank, row.not_offered = evidence.best_rank, evidence.not_offered
    row.alternatives = evidence.alternatives
    row.updated_at = timezone.now()


def _existing_queries(tool_ids: set[int]) -> set[tuple[int, str]]:
    return {(tool_id, normalised(text).casefold()) for tool_id, text in
            HypotheticalQuery.objects.filter(tool_id__in=tool_ids).values_list("tool_id", "text")}


def _curated_texts(texts: set[str]) -> set[str]:
    """Which of these texts are already a hypothetical query of some tool (casefolded)."""
    if not texts:
        return set()
    lowered = {t.casefold() for t in texts}
    return {normalised(text).casefold() for text in HypotheticalQuery.objects.annotate(lower=Lower("text"))
            .filter(lower__in=lowered).values_list("text", flat=True)}


def _forget_already_known() -> int:
    """Pending suggestions whose query the tool has meanwhile got (a curator added it by hand), and
    weak matches whose query went to any tool: its likely tools are no longer a question."""
    pending = list(Suggestion.objects.filter(status=SuggestionStatus.PENDING)
                   .values_list("pk", "tool_id", "text", "kind"))
    known = _existing_queries({tool_id for _, tool_id, _, _ in pending})
    curated = _curated_texts({text for _, _, text, kind in pending if kind == SuggestionKind.WEAK})
    stale = [pk for pk, tool_id, text, kind in pending if (tool_id, normalised(text).casefold()) in known
             or (kind == SuggestionKind.WEAK and normalised(text).casefold() in curated)]
    if stale:
        Suggestion.objects.filter(pk__in=stale).delete()
    return len(stale)


def forget_aged_out(now: datetime | None = None) -> int:
    """Retention: pending suggestions whose evidence is older than the window go; rejected ones
    keep only their query hash (so they stay rejected), not the text."""
    cutoff = retention_start(now)
    forgotten, _ = Suggestion.objects.filter(status=SuggestionStatus.PENDING, last_seen__lt=cutoff).delete()
    Suggestion.objects.filter(status=SuggestionStatus.REJECTED, last_seen__lt=cutoff).exclude(text="").update(text="")
    return forgotten


# --- decisions --------------------------------------------------------------------------------

class SuggestionDecisionError(Exception):
    """The suggestion cannot take this decision (already decided, gone, or its text is gone)."""


GONE = "This suggestion no longer exists (its tool was deleted, or it was forgotten); nothing changed."


def _locked(pk: int) -> Suggestion:
    row = Suggestion.objects.select_for_update().select_related("tool").filter(pk=pk).first()
    if row is None:
        raise SuggestionDecisionError(GONE)
    return row


def accept(suggestion: Suggestion, *, user: Any = None, via: str = "admin") -> HypotheticalQuery:
    """The suggestion becomes an approved hypothetical query of its tool (embedded after commit)."""
    with transaction.atomic():
        row = _locked(suggestion.pk)
        if row.status == SuggestionStatus.ACCEPTED and row.hypothetical_query_id:
            return HypotheticalQuery.objects.get(pk=row.hypothetical_query_id)
        if row.status == SuggestionStatus.REJECTED:
            raise SuggestionDecisionError("Already rejected: it will not be proposed again. To route this query to "
                                          "the tool after all, add it as a hypothetical query in the tool's page.")
        if not row.text:
            raise SuggestionDecisionError("Its query text is no longer kept (retention); it cannot be accepted.")
        try:
            query = services.approved_query(row.tool, row.text, QuerySource.TRAFFIC)
        except ValidationError as exc:
            raise SuggestionDecisionError(" ".join(exc.messages)) from exc
        _decide(row, SuggestionStatus.ACCEPTED, user, via)
        row.hypothetical_query = query
        row.save()
        if row.kind == SuggestionKind.WEAK:
            # The other likely tools of the same query: the curator picked this one.
            for sibling in Suggestion.objects.filter(query_hash=row.query_hash, kind=SuggestionKind.WEAK,
                                                     status=SuggestionStatus.PENDING).exclude(pk=row.pk):
                _decide(sibling, SuggestionStatus.REJECTED, user, f"{via}:other")
                sibling.save()
    return query


def reject(suggestion: Suggestion, *, user: Any = None, via: str = "admin") -> None:
    """Never propose this query for this tool again."""
    with transaction.atomic():
        row = _locked(suggestion.pk)
        if row.status == SuggestionStatus.ACCEPTED:
            raise SuggestionDecisionError("Already accepted: delete its hypothetical query in the tool's page instead.")
        _decide(row, SuggestionStatus.REJECTED, user, via)
        row.save()


def _decide(row: Suggestion, status: str, user: Any, via: str) -> None:
    row.status = status
    row.decided_at = timezone.now()
    row.decided_by = user if getattr(user, "pk", None) else None
    row.decided_via = via[:16]
    row.decision_evidence = {
        "requests": row.requests, "clients": row.clients, "first_seen": row.first_seen.isoformat(),
        "last_seen": row.last_seen.isoformat(), "best_rank": row.best_rank, "not_offered": row.not_offered,
        "kind": row.kind,
    }


def auto_accept(now: datetime | None = None) -> int:
    """The automatic mode: accept pending suggestions past the evidence threshold, within each tool's cap."""
    cutoff = retention_start(now)
    candidates = [s for s in Suggestion.objects.filter(status=SuggestionStatus.PENDING,
                                                       requests__gte=settings.LEARNING_AUTO_MIN_REQUESTS,
                                                       last_seen__gte=cutoff)
                  .exclude(kind=SuggestionKind.WEAK).order_by("-requests", "pk")
                  if len(s.clients) >= settings.LEARNING_AUTO_MIN_CLIENTS]
    taken = _auto_accepted_per_tool({s.tool_id for s in candidates})
    accepted = 0
    for suggestion in candidates:
        if taken.get(suggestion.tool_id, 0) >= settings.LEARNING_AUTO_MAX_PER_TOOL:
            continue
        try:
            accept(suggestion, via="automatic")
        except SuggestionDecisionError as exc:
            logger.warning("learning: could not accept suggestion %s automatically: %s", suggestion.pk, exc)
            continue
        taken[suggestion.tool_id] = taken.get(suggestion.tool_id, 0) + 1
        accepted += 1
    if accepted:
        logger.info("learning: accepted %d suggestions automatically", accepted)
    return accepted


def _auto_accepted_per_tool(tool_ids: set[int]) -> dict[int, int]:
    counts: dict[int, int] = {}
    for tool_id in Suggestion.objects.filter(tool_id__in=tool_ids, status=SuggestionStatus.ACCEPTED,
                                             decided_via="automatic").values_list("tool_id", flat=True):
        counts[tool_id] = counts.get(tool_id, 0) + 1
    return counts
