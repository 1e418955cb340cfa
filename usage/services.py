"""Writes of the usage log: buffer every request, write in batches, roll up, prune, feedback.

The hot path (`record_request`) only serialises the record and RPUSHes it onto a Redis list;
a Celery beat task drains the list into PostgreSQL with bulk inserts. When Redis is down the
records wait in a bounded in-process buffer that is written straight to the database in
batches, or pushed to Redis ahead of the first record Redis takes again; what does not fit is
dropped and counted, never silently lost.
"""
from __future__ import annotations

import atexit
import hashlib
import json
import logging
import signal
import threading
import time
import uuid
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Any

import redis
from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import DatabaseError, DataError, IntegrityError, connection, models, transaction
from django.db.models import Exists, Max, Min, OuterRef
from django.utils import timezone

from engine import NameMap
from shared.db_locks import hold_transaction_lock
from shared.redis_client import get_redis
from shared.storable_text import NUL, replace_in_strings, unstorable_character
from toolcatalog.models import HypotheticalQuery, QuerySource, Tool
from toolcatalog.services import save_and_schedule, save_validated

from . import selectors
from .models import (
    ROLLUP_MODELS,
    DailyCategoryUsage,
    DailyQueryMiss,
    DailyToolUsage,
    DailyUsage,
    DayToRollUp,
    DismissedQuery,
    Feedback,
    FeedbackSource,
    RequestLog,
    StrategyClass,
    Suggestion,
)

logger = logging.getLogger(__name__)

REQUESTS_KEY = "usage:requests"
DROPPED_KEY = "usage:dropped"
DRAIN_LOCK_KEY = "usage:drain-lock"
INSERT_BATCH = 1000
LOCAL_FLUSH_SECONDS = 5.0
BUFFER_SCAN_LIMIT = 20_000


@dataclass
class RequestRecord:
    request_id: str
    endpoint: str
    api_key_id: int | None
    client: str
    toolset: str | None
    query: str
    strategy: str
    confidence: float | None
    fallback: bool
    categories: list[str]
    results: list[dict]  # [{"name", "rank", "score"}]
    latency_ms: float
    tokens_selected: int
    tokens_catalog: int
    tokens_saved: int
    session_id: str | None
    created_at: datetime | None = None  # now() when None
    # The tools the model called in its answer, as catalog names, when the door saw the answer
    # (the proxy); None when it did not. Drained into a Feedback row of source "proxy".
    used_tools: list[str] | None = None


# --- recording ---------------------------------------------------------------------------------

def strategy_class(strategy: str, fallback: bool) -> str:
    """The dashboard's class of a logged strategy: the engine's `used` (bm25, vector, hybrid,
    hierarchical, none) or a gateway's (`passthrough:<reason>`, `deferred`); any fallback is one."""
    name = (strategy or "").lower()
    if fallback:
        return StrategyClass.FALLBACK
    if name.startswith("hierarchical"):
        return StrategyClass.HIERARCHICAL
    if name == "bm25" or "fast" in name:
        return StrategyClass.FAST
    if "hybrid" in name:
        return StrategyClass.HYBRID
    if "vector" in name or "semantic" in name:
        return StrategyClass.SEMANTIC
    return StrategyClass.OTHER


def query_hash(query: str) -> str:
    """Case and spacing do not make a different query for the curation list."""
    normalised = " ".join(query.split()).casefold()
    return hashlib.sha256(normalised.encode("utf-8")).hexdigest()


def stored_query(query: str | None) -> tuple[str | None, str]:
    """(text to store, hash to store) under USAGE_QUERY_STORAGE; the raw text never reaches Redis otherwise."""
    policy = settings.USAGE_QUERY_STORAGE
    if not query or policy == "drop":
        return None, ""
    return (query if policy == "store" else None), query_hash(query)


def _serialise(record: RequestRecord) -> str:
    data = dict(vars(record))  # a shallow copy: asdict's deep copy of the results cost more than the JSON
    data["query"], data["query_hash"] = stored_query(record.query)
    data["created_at"] = (record.created_at or timezone.now()).isoformat()
    payload = json.dumps(data, separators=(",", ":"), default=str)
    if "\\u0000" in payload:  # PostgreSQL's text holds no NUL: the drain would drop the whole record
        payload = json.dumps(replace_in_strings(json.loads(payload), NUL, "\ufffd")[0], separators=(",", ":"))
    return payload


class _LocalBuffer:
    """Records kept in this process while Redis is unreachable."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.items: list[str] = []
        self.dropped = 0  # in this process since it started
        self.unreported = 0  # dropped here, not yet added to the Redis counter
        self.redis_down_until = 0.0
        self.last_flush = time.monotonic()


_local = _LocalBuffer()


def record_request(record: RequestRecord) -> None:
    """Buffer one request for the log; never raises, never waits on the database in the normal case."""
    try:
        payload = _serialise(record)
    except (TypeError, ValueError):
        logger.exception("usage record %s could not be serialised", record.request_id)
        _count_dropped(1)
        return
    if time.monotonic() >= _local.redis_down_until:
        try:
            _push_to_redis(payload)
            return
        except redis.RedisError as exc:
            # Skip Redis for a while: a hung server would otherwise cost every request a timeout.
            _local.redis_down_until = time.monotonic() + settings.USAGE_REDIS_RETRY_SECONDS
            logger.warning("usage log: Redis unavailable (%s); buffering in process", exc)
    _buffer_locally(payload)


def _push_to_redis(payload: str) -> None:
    """RPUSH the record, preceded by those this process kept while Redis was down (oldest first):
    once Redis is back, nothing else would ever move them, and a stop by a signal would lose them."""
    waiting = _take_local_buffer() if _local.items else []
    try:
        get_redis().rpush(REQUESTS_KEY, *waiting, payload)
    except redis.RedisError:
        _put_back(waiting)
        raise


def _buffer_locally(payload: str) -> None:
    with _local.lock:
        if len(_local.items) >= settings.USAGE_LOCAL_BUFFER_MAX:
            full = True
        else:
            full = False
            _local.items.append(payload)
        due = (len(_local.items) >= settings.USAGE_LOCAL_FLUSH_BATCH
               or time.monotonic() - _local.last_flush > LOCAL_FLUSH_SECONDS)
    if full:
        _count_dropped(1)
    if due:
        flush_local_buffer()


def _count_dropped(count: int) -> None:
    with _local.lock:
        _local.dropped += count
        _local.unreported += count


def flush_local_buffer() -> int:
    """Write the in-process buffer straight to the database; keep it when the database fails too."""
    items = _take_local_buffer()
    if not items:
        return 0
    try:
        return _insert(items)
    except DatabaseError:
        logger.exception("usage log: database unavailable; keeping %d records in process", len(items))
        _put_back(items)
        return 0
    except (SystemExit, KeyboardInterrupt):
        _put_back(items)  # a stop signal cut the write short: the exit hook writes them (duplicates are skipped)
        raise


def _take_local_buffer() -> list[str]:
    with _local.lock:
        items, _local.items = _local.items, []
        _local.last_flush = time.monotonic()
    return items


def _put_back(items: list[str]) -> None:
    """Return records that could not be written to the front of the buffer, as far as it has room."""
    with _local.lock:
        room = max(0, settings.USAGE_LOCAL_BUFFER_MAX - len(_local.items))
        _local.items[:0] = items[:room]
    if len(items) > room:
        _count_dropped(len(items) - room)


# --- draining ----------------------------------------------------------------------------------

def drain_request_buffer(max_items: int = 5000) -> int:
    """Move up to `max_items` buffered records into RequestLog; returns how many were written.

    Read, insert, then trim: a crash between insert and trim only re-inserts rows that
    `ignore_conflicts` on the unique request_id skips, so nothing is lost or doubled.
    """
    written = flush_local_buffer()
    try:
        client = get_redis()
        token = uuid.uuid4().hex
        if not client.set(DRAIN_LOCK_KEY, token, nx=True, ex=120):
            return written  # another drainer is at it; trimming twice would lose records
        try:
            written += _drain_redis(client, max_items)
            _report_dropped(client)
        finally:
            if client.get(DRAIN_LOCK_KEY) == token.encode():
                client.delete(DRAIN_LOCK_KEY)
    except redis.RedisError as exc:
        logger.warning("usage log: cannot drain Redis buffer (%s)", exc)
    except DatabaseError as exc:
        logger.warning("usage log: database unavailable; records stay in Redis (%s)", exc)
    return written


def _drain_redis(client: redis.Redis, max_items: int) -> int:
    written = 0
    while written < max_items:
        batch = client.lrange(REQUESTS_KEY, 0, min(INSERT_BATCH, max_items - written) - 1)
        if not batch:
            break
        _insert(batch)
        client.ltrim(REQUESTS_KEY, len(batch), -1)
        written += len(batch)
    return written


def drain_everything() -> int:
    """For a clean shutdown: empty both buffers."""
    total = 0
    while True:
        written = drain_request_buffer(max_items=INSERT_BATCH * 10)
        total += written
        if written == 0:
            return total


def _report_dropped(client: redis.Redis) -> None:
    with _local.lock:
        count, _local.unreported = _local.unreported, 0
    if count:
        try:
            client.incrby(DROPPED_KEY, count)
        except redis.RedisError:
            with _local.lock:
                _local.unreported += count
            raise


def _insert(payloads: list) -> int:
    parsed = [row for row in (_to_rows(p) for p in payloads) if row is not None]
    try:
        with transaction.atomic():
            _follow_keys(parsed)
            RequestLog.objects.bulk_create([log for log, _ in parsed], batch_size=INSERT_BATCH, ignore_conflicts=True)
            Feedback.objects.bulk_create([fb for _, fb in parsed if fb is not None], batch_size=INSERT_BATCH,
                                         ignore_conflicts=True)  # a client's own report wins
            mark_to_roll_up_again({_utc_day(log.created_at) for log, _ in parsed})
    except DatabaseError as exc:
        if not _is_data_error(exc):
            raise
        return _insert_one_by_one(parsed)
    return len(parsed)


def _is_data_error(exc: DatabaseError) -> bool:
    return isinstance(exc, (DataError, IntegrityError))


LoggedRows = tuple[RequestLog, Feedback | None]


def _insert_one_by_one(parsed: list[LoggedRows]) -> int:
    """One bad row must not block the whole buffer forever: write the others, count it dropped."""
    written = 0
    for log, feedback in parsed:
        try:
            with transaction.atomic():
                _follow_keys([(log, feedback)])
                RequestLog.objects.bulk_create([log], ignore_conflicts=True)
                if feedback is not None:
                    Feedback.objects.bulk_create([feedback], ignore_conflicts=True)
                mark_to_roll_up_again({_utc_day(log.created_at)})
            written += 1
        except DatabaseError as exc:
            if not _is_data_error(exc):
                raise
            logger.error("usage log: dropping record %s: %s", log.request_id, exc)
            _count_dropped(1)
    return written


def _follow_keys(parsed: list[LoggedRows]) -> None:
    """Records of a key are written under its name as it is now, not as it was at request time: a
    key renamed while its records waited in a buffer keeps one history (see rename_client). A key
    deleted between request and drain is forgotten: its foreign key would fail the whole batch.

    Call it inside the transaction that inserts the rows: the key rows stay locked against a rename
    or a deletion until the rows are committed, so a rename's UPDATE of the log sees them.
    """
    key_ids = {log.api_key_id for log, _ in parsed if log.api_key_id is not None}
    if not key_ids:
        return
    names = _current_key_names(key_ids)
    for log, feedback in parsed:
        if log.api_key_id is None:
            continue
        if log.api_key_id in names:
            log.client = names[log.api_key_id][:128]
        else:
            log.api_key_id = None
            if feedback is not None:
                feedback.api_key_id = None


def _current_key_names(key_ids: set[int]) -> dict[int, str]:
    """Names of the keys that still exist, locked FOR KEY SHARE: it blocks a change of the (unique)
    name and a deletion, not the last-used touch every request makes."""
    # The key model through the foreign key: the usage log does not import the API layer above it.
    api_keys = RequestLog._meta.get_field("api_key").related_model._meta
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {api_keys.pk.column}, name FROM {api_keys.db_table} "
                       f"WHERE {api_keys.pk.column} = ANY(%s) FOR KEY SHARE", [sorted(key_ids)])
        return dict(cursor.fetchall())


def _to_rows(payload: bytes | str) -> LoggedRows | None:
    try:
        data = json.loads(payload)
        log = RequestLog(
            created_at=datetime.fromisoformat(data["created_at"]),
            request_id=str(data["request_id"])[:64],
            api_key_id=data.get("api_key_id"),
            client=(data.get("client") or "")[:128],
            toolset=(data.get("toolset") or None) and str(data["toolset"])[:128],
            endpoint=str(data["endpoint"])[:16],
            query=data.get("query"),
            query_hash=data.get("query_hash") or "",
            strategy=(data.get("strategy") or "")[:64],
            strategy_class=strategy_class(data.get("strategy") or "", bool(data.get("fallback"))),
            confidence=data.get("confidence"),
            fallback=bool(data.get("fallback")),
            categories=[str(c)[:128] for c in data.get("categories") or []],
            results=_clean_results(data.get("results") or []),
            latency_ms=float(data.get("latency_ms") or 0.0),
            tokens_selected=int(data.get("tokens_selected") or 0),
            tokens_catalog=int(data.get("tokens_catalog") or 0),
            tokens_saved=int(data.get("tokens_saved") or 0),
            session_id=(data.get("session_id") or None) and str(data["session_id"])[:128],
        )
        feedback = None
        if data.get("used_tools") is not None:
            used = [str(name)[:128] for name in data["used_tools"]]
            feedback = Feedback(request_id=log.request_id, api_key_id=log.api_key_id, success=None,
                                source=FeedbackSource.PROXY, created_at=log.created_at,
                                **compare_with_offered(log.results, used, []))
        return log, feedback
    except (ValueError, KeyError, TypeError, AttributeError):
        logger.error("usage log: dropping a malformed buffered record: %.200r", payload)
        _count_dropped(1)
        return None


def _clean_results(results: list) -> list[dict]:
    return [{"name": str(r.get("name", "")), "rank": int(r.get("rank") or i + 1), "score": r.get("score")}
            for i, r in enumerate(results) if isinstance(r, dict)]


def _drain_at_exit() -> None:
    """Web processes: records still in this process's buffer go to the database on a clean exit."""
    try:
        flush_local_buffer()
        if _local.unreported:
            _report_dropped(get_redis())
    except Exception:  # noqa: BLE001 - an exit hook must not raise, but must say what it lost
        logger.exception("usage log: could not flush %d records at exit", len(_local.items))


atexit.register(_drain_at_exit)


def exit_through_exit_hooks_on_sigterm() -> None:
    """Make a plain SIGTERM end this process as an exit does, so that _drain_at_exit writes what it
    holds: Python's default action kills it without running exit hooks. Called when a web server loads the
    application (toolrouter/wsgi.py).

    Only where nothing else handles SIGTERM (a bare WSGI server, `runserver --noreload`): gunicorn's
    workers, Celery and devservices install their own, which stop cleanly. Only from the main
    thread, the one Python lets set a handler (mod_wsgi, say, loads Django in another thread)."""
    if threading.current_thread() is threading.main_thread() and signal.getsignal(signal.SIGTERM) == signal.SIG_DFL:
        signal.signal(signal.SIGTERM, _exit_on_sigterm)


def _exit_on_sigterm(signum: int, frame: object) -> None:
    # SystemExit, as Django's autoreloader does for runserver: the main thread unwinds (releasing
    # locks, rolling back a transaction it was in), then the exit hooks run.
    raise SystemExit(0)


# --- health ------------------------------------------------------------------------------------

def usage_health() -> dict:
    """For /readyz and the dashboard: what waits in the buffers and what was dropped."""
    with _local.lock:
        in_process, local_dropped, unreported = len(_local.items), _local.dropped, _local.unreported
    body: dict = {"buffered_in_process": in_process, "dropped_in_process": local_dropped}
    try:
        client = get_redis()
        pipe = client.pipeline()
        pipe.llen(REQUESTS_KEY)
        pipe.get(DROPPED_KEY)
        buffered, dropped = pipe.execute()
        body.update(redis_ok=True, buffered_in_redis=int(buffered), dropped_total=int(dropped or 0) + unreported)
    except redis.RedisError as exc:
        body.update(redis_ok=False, redis_error=str(exc)[:200], buffered_in_redis=None, dropped_total=unreported)
    return body


# --- feedback ----------------------------------------------------------------------------------

class UnknownRequest(Exception):
    """No request with this id was made with this API key."""


class RequestLogUnreadable(Exception):
    """The request is neither in the database nor in this process, and Redis, where it may still wait
    (or in another web process, while Redis is down), cannot be read: whether it exists is not known."""


def record_feedback(*, request_id: str, used_tools: list[str], success: bool | None,
                    api_key_id: int | None, missing_tools: list[str] | None = None) -> Feedback:
    """Compare what the agent called (and what it says it missed) with what the request offered;
    a second report replaces the first, also one the proxy recorded."""
    logged = _find_request(request_id, api_key_id)
    if logged is None:
        raise UnknownRequest(request_id)
    offered = {r["name"] for r in logged["results"]}
    used = _catalog_names(list(dict.fromkeys(used_tools)), offered)
    missing = _catalog_names(list(dict.fromkeys(missing_tools or [])), offered)
    with transaction.atomic():
        feedback, _ = Feedback.objects.update_or_create(
            request_id=request_id,
            defaults={
                "api_key_id": api_key_id,
                "success": success,
                "source": FeedbackSource.CLIENT,
                "created_at": timezone.now(),  # when it arrived; the dashboard counts it on its request's day
                **compare_with_offered(logged["results"], used, missing),
            },
        )
        mark_to_roll_up_again({_utc_day(logged["created_at"])})
    return feedback


def compare_with_offered(results: list[dict], used: list[str], missing: list[str]) -> dict[str, list]:
    """Feedback's fields: what was used among the offered tools (with their ranks), what was
    offered and not used, and what was needed (used or reported missing) without being offered."""
    rank = {r["name"]: r.get("rank") or i + 1 for i, r in enumerate(results)}
    offered = sorted(rank, key=rank.__getitem__)
    offered_and_used = [name for name in used if name in rank]
    return {
        "used_tools": used,
        "missing_tools": missing,
        "offered_and_used": offered_and_used,
        "used_ranks": [rank[name] for name in offered_and_used],
        "offered_unused": [name for name in offered if name not in used],
        "missed": list(dict.fromkeys(name for name in used + missing if name not in rank)),
    }


def _catalog_names(names: list[str], offered: set[str]) -> list[str]:
    """Agents send back the provider-safe names the route answer gave them, in whichever format it
    was (SPEC: names are mapped back)."""
    unknown = [name for name in names if name not in offered]
    if not unknown:
        return names
    name_map = NameMap({str(name) for name in Tool.objects.values_list("name", flat=True)} | offered)
    return list(dict.fromkeys(name_map.referred(name) or name for name in names))


def _find_request(request_id: str, api_key_id: int | None) -> dict | None:
    """The request this key made with this id, from the database or, if not drained yet, from the buffers.

    Another key's request is looked for as if it did not exist, so a key learns nothing of it, not even
    while Redis is down (the same 503 as an id made by no one, not a 404 that says it was found).
    Looking in the database, then the buffers, then the database again cannot miss a record
    that a concurrent drainer moves: it leaves the list only after its row is committed.
    Raises RequestLogUnreadable rather than answer "none" when Redis could not be read.
    """
    found = _request_from_db(request_id, api_key_id)
    if found is None:
        drain_request_buffer()
        found = _request_from_db(request_id, api_key_id)
    if found is None:
        found, redis_read = _request_from_buffers(request_id, api_key_id)
        found = found or _request_from_db(request_id, api_key_id)
        if found is None and not redis_read:
            raise RequestLogUnreadable(request_id)
    return found


def _request_from_db(request_id: str, api_key_id: int | None) -> dict[str, Any] | None:
    found = (RequestLog.objects.filter(request_id=request_id, api_key_id=api_key_id)
             .values("results", "created_at").first())
    return dict(found) if found is not None else None


def _request_from_buffers(request_id: str, api_key_id: int | None) -> tuple[dict | None, bool]:
    """This key's record from this process's buffer or Redis's, and whether Redis could be read."""
    with _local.lock:
        candidates: list[str | bytes] = list(_local.items)
    redis_read = True
    try:
        # Newest first: records are pushed at the tail, and feedback follows its request closely,
        # so behind a long backlog (a worker down) the record asked for is among the last ones.
        candidates += reversed(get_redis().lrange(REQUESTS_KEY, -BUFFER_SCAN_LIMIT, -1))
    except redis.RedisError:
        redis_read = False  # the drain before this logged why
    return _request_in(candidates, request_id, api_key_id), redis_read


def _request_in(candidates: list[str | bytes], request_id: str, api_key_id: int | None) -> dict | None:
    needle = json.dumps(request_id)
    for payload in candidates:
        text = payload.decode() if isinstance(payload, bytes) else payload
        if needle in text:
            data = json.loads(text)
            if data.get("request_id") == request_id and data.get("api_key_id") == api_key_id:
                return {"results": _clean_results(data.get("results") or []),
                        "created_at": datetime.fromisoformat(data["created_at"])}
    return None


# --- curation ----------------------------------------------------------------------------------

def add_learned_query(tool_name: str, text: str) -> HypotheticalQuery:
    """The dashboard's one click: a query that found nothing becomes an approved hypothetical query of a tool."""
    tool = Tool.objects.filter(name=tool_name).first()
    if tool is None:
        raise ValidationError({"tool": f"There is no tool named {tool_name!r}."})
    text = learned_text(text)
    if problem := query_problem(text):
        raise ValidationError({"query": problem})
    return approved_query(tool, text, QuerySource.LEARNED)


def learned_text(query: str | None) -> str:
    """A logged query as a hypothetical query's text: its whitespace collapsed."""
    return " ".join((query or "").split())


def query_problem(query: str | None) -> str:
    """Why this query can never be a hypothetical query ("" when it can): what a save would refuse."""
    text = learned_text(query)
    limit = HypotheticalQuery._meta.get_field("text").max_length
    if not text:
        return "The query is empty: there is nothing to add."
    if limit is not None and len(text) > limit:
        return f"The query is {len(text):,} characters long; a hypothetical query holds at most {limit}."
    if found := unstorable_character(text):
        return f"The query contains {found}, which the catalog cannot store."
    return ""


def approved_query(tool: Tool, text: str, source: str) -> HypotheticalQuery:
    """The tool's hypothetical query with this text, approved, so that it takes part in routing: a new
    one of `source`, or the one the tool already has (approved now if it was not; it keeps its source)."""
    query = HypotheticalQuery.objects.filter(tool=tool, text=text).first()
    if query is None:
        return save_validated(HypotheticalQuery(tool=tool, text=text, source=source, approved=True))
    if not query.approved:
        query.approved = True
        save_and_schedule(query, update_fields=["approved"])
    return query


def dismiss_query(query_hash: str, query: str | None, by: str) -> DismissedQuery:
    """Take a query off the curation list for good (junk, a test, a formula)."""
    if not query_hash or len(query_hash) > 64:
        raise ValidationError({"query_hash": "Nothing to dismiss: the query's hash is missing."})
    dismissed, _ = DismissedQuery.objects.get_or_create(query_hash=query_hash,
                                                        defaults={"query": query or None, "dismissed_by": by})
    return dismissed


# --- rollups and retention ---------------------------------------------------------------------

def _utc_day(moment: datetime) -> date:
    return moment.astimezone(UTC).date()


def mark_to_roll_up_again(days: set[date]) -> None:
    """Have the next roll-up roll these days up again, those of them that are finished: their raw rows
    just changed. Call it in the transaction that changes the rows. The upsert locks an existing
    mark until that transaction ends, so a roll-up of the day, which deletes the mark first, either
    waits and then sees the new rows, or leaves a mark for the next run."""
    today = _utc_day(timezone.now())
    finished = sorted(day for day in days if day < today)
    if finished:  # most batches hold only today's records: no query
        now = timezone.now()
        DayToRollUp.objects.bulk_create([DayToRollUp(day=day, marked_at=now) for day in finished],
                                        update_conflicts=True, unique_fields=["day"], update_fields=["marked_at"])


ROLL_UP_DRAIN_SECONDS = 120.0


def _drain_before_rolling_up(seconds: float = ROLL_UP_DRAIN_SECONDS) -> None:
    """Empty the buffer, so that a backlog (the database or the worker was away) is counted on its days
    now; within a time limit, as traffic keeps coming. What is drained later marks its days instead."""
    deadline = time.monotonic() + seconds
    batch = INSERT_BATCH * 10
    while drain_request_buffer(max_items=batch) >= batch and time.monotonic() < deadline:
        pass


def prune_and_roll_up(now: datetime | None = None) -> dict:
    """Roll up every finished day not rolled up yet, again the last two and those whose raw rows
    changed since they were rolled up (a late record, feedback), then delete raw rows and feedback
    older than USAGE_RETENTION_DAYS."""
    now = now or timezone.now()
    _drain_before_rolling_up()  # yesterday's last records may still wait in the buffer
    today = _utc_day(now)
    cutoff_day = today - timedelta(days=settings.USAGE_RETENTION_DAYS)
    # A day retention has thinned is never rolled up again: its rollup holds more than its raw rows.
    DayToRollUp.objects.filter(day__lt=cutoff_day).delete()
    marked = DayToRollUp.objects.filter(day__lt=today).values_list("day", flat=True)
    days = sorted({*_days_to_roll_up(today, cutoff_day), *marked})
    for day in days:
        roll_up_day(day)
    cutoff = selectors.utc_day_start(cutoff_day)
    pruned_requests, _ = RequestLog.objects.filter(created_at__lt=cutoff).delete()
    pruned_feedback, _ = Feedback.objects.filter(created_at__lt=cutoff).delete()
    from .suggestions import forget_aged_out  # suggestions build on this module

    return {"rolled_up": [d.isoformat() for d in days], "pruned_requests": pruned_requests,
            "pruned_feedback": pruned_feedback, "forgotten_suggestions": forget_aged_out(now)}


def _days_to_roll_up(today: date, cutoff_day: date) -> list[date]:
    last = DailyUsage.objects.filter(client=None).aggregate(last=Max("day"))["last"]
    if last is None:
        earliest = RequestLog.objects.aggregate(first=Min("created_at"))["first"]
        if earliest is None:
            return []
        first = earliest.astimezone(UTC).date()
    else:
        # Re-roll recent days for records drained late, but never a day retention has thinned.
        first = min(last + timedelta(days=1), max(last - timedelta(days=1), cutoff_day))
    return [first + timedelta(days=i) for i in range((today - first).days)]


def roll_up_day(day: date) -> None:
    """Replace the rollups of one UTC day with figures computed from its raw rows: those of all
    clients together, then those of each client of the day."""
    start, end = selectors.utc_day_start(day), selectors.utc_day_start(day + timedelta(days=1))
    with transaction.atomic():
        _lock_client_names()  # a rename moving the day's rows while they are counted would split the client
        DayToRollUp.objects.filter(day=day).delete()  # before reading: a change from now on marks it again
        clients = sorted(c.client for c in selectors.window_clients(start, end))
        for model in ROLLUP_MODELS:
            model.objects.filter(day=day).delete()
        for client in [None, *clients]:
            _roll_up_client_day(day, start, end, client)


def _roll_up_client_day(day: date, start: datetime, end: datetime, client: str | None) -> None:
    totals = selectors.window_totals(start, end, client)
    feedback = selectors.window_feedback_totals(start, end, client)
    DailyUsage.objects.create(day=day, client=client, **totals.as_rollup_fields(), **feedback.as_rollup_fields())
    DailyToolUsage.objects.bulk_create(
        DailyToolUsage(day=day, client=client, tool=t.tool, offered=t.offered, used=t.used, unused=t.unused,
                       missed=t.missed)
        for t in selectors.window_tools(start, end, client)
    )
    DailyCategoryUsage.objects.bulk_create(
        DailyCategoryUsage(day=day, client=client, category=name, requests=count)
        for name, count in selectors.window_categories(start, end, client)
    )
    DailyQueryMiss.objects.bulk_create(
        (DailyQueryMiss(day=day, client=client, query_hash=m.query_hash, query=m.query, count=m.count,
                        no_results=m.no_results, best_confidence=m.best_confidence,
                        clients=m.clients, strategies=m.strategies)
         for m in selectors.window_misses(start, end, client)),
        batch_size=INSERT_BATCH,
    )


# --- renamed clients ---------------------------------------------------------------------------

CLIENT_NAMES_LOCK_KEY = 0x636C69656E746E6D  # a PostgreSQL advisory lock of this module's own ("clientnm")

# What tells two rollup rows of one client apart: a rename merges rows that agree on these.
ROLLUP_IDENTITY: dict[type[models.Model], tuple[str, ...]] = {
    DailyUsage: ("day",),
    DailyToolUsage: ("day", "tool"),
    DailyCategoryUsage: ("day", "category"),
    DailyQueryMiss: ("day", "query_hash"),
}


def _lock_client_names() -> None:
    """Renames and roll-ups take turns: each rewrites rows of a client by its name."""
    hold_transaction_lock(CLIENT_NAMES_LOCK_KEY)


def rename_client(old_name: str, new_name: str) -> None:
    """The usage history of a renamed API key goes with it: its logged requests, the rollups of
    its days and the client names of the curation list and the learning suggestions.

    Call it once the key's row has its new name: records drained from then on take the key's
    current name (_follow_keys), those already written are renamed here, in one transaction of
    batched UPDATEs (the log may hold millions of rows). A name that already has history (a
    deleted key left it) gets this key's history too, as a new key given that name would.
    """
    if not old_name or old_name == new_name:
        return
    with transaction.atomic():
        _lock_client_names()
        RequestLog.objects.filter(client=old_name).update(client=new_name)
        for model, identity in ROLLUP_IDENTITY.items():
            _move_rollups(model, identity, old_name, new_name)
        for model in (DailyQueryMiss, Suggestion):
            _rename_in_client_lists(model, old_name, new_name)


def _move_rollups(model: type[models.Model], identity: tuple[str, ...], old_name: str, new_name: str) -> None:
    # Rows that would collide with the new name's are merged one by one: only a name that a deleted
    # key used has any, and only on the days both keys had traffic.
    rows = model._default_manager
    taken = rows.filter(client=new_name, **{field: OuterRef(field) for field in identity})
    for moved in rows.filter(Exists(taken), client=old_name):
        kept = rows.get(client=new_name, **{field: getattr(moved, field) for field in identity})
        _merge_rollup(kept, moved)
        kept.save()
        moved.delete()
    rows.filter(client=old_name).update(client=new_name)


def _merge_rollup(kept: Any, moved: Any) -> None:
    """Counters add up; the latency percentiles come from the summed histogram, as for a range of days."""
    for field in kept._meta.concrete_fields:
        counter = isinstance(field, (models.IntegerField, models.FloatField))
        if counter and not field.primary_key and not field.null:
            setattr(kept, field.attname, getattr(kept, field.attname) + getattr(moved, field.attname))
    if isinstance(kept, DailyUsage):
        kept.latency_histogram = selectors.add_histograms(kept.latency_histogram, moved.latency_histogram)
        kept.latency_p50_ms = selectors.percentile_from_histogram(kept.latency_histogram, 0.5)
        kept.latency_p95_ms = selectors.percentile_from_histogram(kept.latency_histogram, 0.95)
    if isinstance(kept, DailyQueryMiss):
        confidences = [c for c in (kept.best_confidence, moved.best_confidence) if c is not None]
        kept.best_confidence = max(confidences, default=None)
        kept.query = kept.query or moved.query
        kept.clients = sorted({*kept.clients, *moved.clients})[:selectors.CONTEXT_NAMES]
        kept.strategies = sorted({*kept.strategies, *moved.strategies})[:selectors.CONTEXT_NAMES]


def _rename_in_client_lists(model: type[models.Model], old_name: str, new_name: str) -> None:
    """Replace the name in every `clients` list that holds it, keeping the lists sorted and without repeats."""
    table = model._meta.db_table
    with connection.cursor() as cursor:
        cursor.execute(
            f"""UPDATE {table} SET clients = ARRAY(
                    SELECT DISTINCT name FROM unnest(array_replace(clients, %s, %s)) AS name ORDER BY name)
                WHERE clients @> ARRAY[%s]::varchar[]""",
            [old_name, new_name, old_name],
        )
