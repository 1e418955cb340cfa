"""Reads of the usage log for the dashboard and the rollups.

A range is read from two sources: finished days from the daily rollups (a few rows per day,
so months stay fast) and the rest (today, or the last 24 hours) from raw RequestLog rows.
The `window_*` functions aggregate raw rows in SQL; the rollup job stores exactly what they
return, for all clients together and for each client, so that a day reads the same before and
after it is rolled up, in the dashboard's view of every client and of one.
"""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import asdict, dataclass, field, replace
from datetime import UTC, date, datetime, timedelta
from typing import Any, TypeVar

from django.conf import settings
from django.db import connection
from django.db.models import Max, QuerySet, Sum
from django.utils import timezone

from toolcatalog.models import HypotheticalQuery, Tool
from toolcatalog.selectors import ids_by_name

from .models import (
    DailyCategoryUsage,
    DailyQueryMiss,
    DailyToolUsage,
    DailyUsage,
    DismissedQuery,
    Feedback,
    RequestLog,
    StrategyClass,
)

RollupModel = TypeVar("RollupModel", DailyUsage, DailyToolUsage, DailyCategoryUsage, DailyQueryMiss)

# Upper bounds of the latency histogram buckets; the last bucket holds everything slower.
LATENCY_BUCKETS_MS = (1, 2, 3, 5, 7.5, 10, 15, 20, 30, 50, 75, 100, 150, 200, 300, 500, 750, 1000, 2000, 5000)
STRATEGY_CLASSES = ("fast", "semantic", "hybrid", "hierarchical", "fallback", "other")
RANGE_DAYS = {"24h": 1, "7d": 7, "30d": 30}
DEFAULT_RANGE = "24h"
LOG_TABLE = RequestLog._meta.db_table


def utc_day_start(day: date) -> datetime:
    return datetime(day.year, day.month, day.day, tzinfo=UTC)


def _share(part: float, whole: float) -> float | None:
    return part / whole if whole else None


def percentile_from_histogram(histogram: list[int], q: float) -> float | None:
    """Linear interpolation inside the bucket that holds the q-th request."""
    total = sum(histogram)
    if not total:
        return None
    rank, seen = q * total, 0
    for index, count in enumerate(histogram):
        if count and seen + count >= rank:
            lower = 0.0 if index == 0 else float(LATENCY_BUCKETS_MS[index - 1])
            upper = float(LATENCY_BUCKETS_MS[min(index, len(LATENCY_BUCKETS_MS) - 1)])
            return lower + (upper - lower) * (rank - seen) / count
        seen += count
    return float(LATENCY_BUCKETS_MS[-1])


def add_histograms(a: list[int], b: list[int]) -> list[int]:
    size = len(LATENCY_BUCKETS_MS) + 1
    a, b = (a or [0] * size), (b or [0] * size)
    return [x + y for x, y in zip(a, b)]


# --- result shapes -----------------------------------------------------------------------------

@dataclass
class Totals:
    requests: int = 0
    route_requests: int = 0
    tool_search_requests: int = 0
    filter_requests: int = 0
    proxy_requests: int = 0
    latency_sum_ms: float = 0.0
    latency_p50_ms: float | None = None
    latency_p95_ms: float | None = None
    latency_histogram: list[int] = field(default_factory=lambda: [0] * (len(LATENCY_BUCKETS_MS) + 1))
    tokens_selected: int = 0
    tokens_catalog: int = 0
    tokens_saved: int = 0
    strategies: dict[str, int] = field(default_factory=lambda: dict.fromkeys(STRATEGY_CLASSES, 0))
    low_confidence: int = 0
    no_results: int = 0
    percentiles_exact: bool = True

    @property
    def saved_share(self) -> float | None:
        return _share(self.tokens_saved, self.tokens_catalog)

    @property
    def latency_mean_ms(self) -> float | None:
        return _share(self.latency_sum_ms, self.requests)

    def as_rollup_fields(self) -> dict:
        fields = asdict(self)
        fields.pop("percentiles_exact")
        strategies = fields.pop("strategies")
        fields.update({f"strategy_{name}": strategies[name] for name in STRATEGY_CLASSES})
        return fields

    def merged(self, other: Totals) -> Totals:
        """Sums; percentiles of the union come from the histograms (approximate)."""
        histogram = add_histograms(self.latency_histogram, other.latency_histogram)
        return Totals(
            requests=self.requests + other.requests,
            route_requests=self.route_requests + other.route_requests,
            tool_search_requests=self.tool_search_requests + other.tool_search_requests,
            filter_requests=self.filter_requests + other.filter_requests,
            proxy_requests=self.proxy_requests + other.proxy_requests,
            latency_sum_ms=self.latency_sum_ms + other.latency_sum_ms,
            latency_p50_ms=percentile_from_histogram(histogram, 0.5),
            latency_p95_ms=percentile_from_histogram(histogram, 0.95),
            latency_histogram=histogram,
            tokens_selected=self.tokens_selected + other.tokens_selected,
            tokens_catalog=self.tokens_catalog + other.tokens_catalog,
            tokens_saved=self.tokens_saved + other.tokens_saved,
            strategies={k: self.strategies[k] + other.strategies[k] for k in STRATEGY_CLASSES},
            low_confidence=self.low_confidence + other.low_confidence,
            no_results=self.no_results + other.no_results,
            percentiles_exact=False,
        )


@dataclass
class FeedbackTotals:
    """The feedback of a window: the hit-rate card's figures and the learning-loop card's (evidence,
    recall on confirmed traffic, rank of the used tools), which rollups keep beyond retention."""

    feedback: int = 0
    feedback_success: int = 0
    feedback_failure: int = 0
    tools_used: int = 0
    tools_offered_and_used: int = 0
    tools_missed: int = 0
    feedback_proxy: int = 0  # read by the proxy from the model's answer
    feedback_needing_tools: int = 0  # whose request needed a tool (used or reported missing)
    used_rank_sum: int = 0  # the ranks the used tools had when offered
    used_ranked: int = 0  # how many ranks used_rank_sum adds up

    @property
    def hit_rate(self) -> float | None:
        """Share of the tools agents really called that the router had offered."""
        return _share(self.tools_offered_and_used, self.tools_used)

    @property
    def recall(self) -> float | None:
        """Share of the tools requests needed (used, or reported missing) that had been offered."""
        return _share(self.tools_offered_and_used, self.tools_offered_and_used + self.tools_missed)

    @property
    def mean_rank(self) -> float | None:
        return _share(self.used_rank_sum, self.used_ranked)

    @property
    def success_rate(self) -> float | None:
        return _share(self.feedback_success, self.feedback_success + self.feedback_failure)

    def as_rollup_fields(self) -> dict:
        return asdict(self)

    def merged(self, other: FeedbackTotals) -> FeedbackTotals:
        return FeedbackTotals(**{k: v + getattr(other, k) for k, v in asdict(self).items()})


@dataclass
class ToolUsage:
    tool: str
    offered: int = 0
    used: int = 0  # offered and used
    unused: int = 0  # offered, not used
    missed: int = 0  # used without having been offered


@dataclass
class ClientUsage:
    client: str
    requests: int = 0
    latency_sum_ms: float = 0.0
    tokens_saved: int = 0
    tokens_catalog: int = 0
    fallback: int = 0

    @property
    def latency_mean_ms(self) -> float | None:
        return _share(self.latency_sum_ms, self.requests)

    @property
    def saved_share(self) -> float | None:
        return _share(self.tokens_saved, self.tokens_catalog)

    @property
    def fallback_share(self) -> float | None:
        return _share(self.fallback, self.requests)


@dataclass
class QueryMiss:
    query_hash: str
    query: str | None
    count: int
    no_results: int
    best_confidence: float | None
    clients: list[str] = field(default_factory=list)  # who asked it (API key names), at most CONTEXT_NAMES a day
    strategies: list[str] = field(default_factory=list)  # the strategies that answered it
    likely_tools: list[str] = field(default_factory=list)  # the suggestions' one-click choices (learning_card.py)


@dataclass
class SeriesPoint:
    start: datetime
    requests: int = 0
    latency_p50_ms: float | None = None
    latency_p95_ms: float | None = None
    tokens_saved: int = 0


# --- raw windows -------------------------------------------------------------------------------
# Each reads raw rows of [start, end), of one client when `client` is given (the dashboard's
# client filter); the rollup job calls them without one and then once per client of the day.

def _fetchall(sql: str, params: list) -> list[tuple]:
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall()


def _log_window(start: datetime, end: datetime, client: str | None, alias: str = "") -> tuple[str, list]:
    """The WHERE condition (and its parameters) of a time window of the request log."""
    column = f"{alias}." if alias else ""
    sql = f"{column}created_at >= %s AND {column}created_at < %s"
    params: list[object] = [start, end]
    if client is not None:
        sql += f" AND {column}client = %s"
        params.append(client)
    return sql, params


def feedback_window(start: datetime, end: datetime, client: str | None) -> tuple[str, list]:
    """The condition on feedback rows `f` of the requests of a window: feedback counts on its request's
    day and for its request's client, not on the day it arrived. So a day's figures agree with
    themselves, a client's feedback is in that client's rollup of the day, and a report that replaces
    another replaces it in the figures instead of counting again on a later day."""
    where, params = _log_window(start, end, client, alias="l")
    # Feedback never comes before its request: the bound lets the index on f.created_at skip older rows.
    return (f"f.created_at >= %s AND EXISTS (SELECT 1 FROM {LOG_TABLE} l WHERE l.request_id = f.request_id "
            f"AND {where})", [start, *params])


def window_totals(start: datetime, end: datetime, client: str | None = None) -> Totals:
    strategy_counts = ", ".join(f"count(*) FILTER (WHERE strategy_class = '{name}')" for name in STRATEGY_CLASSES)
    where, params = _log_window(start, end, client)
    row = _fetchall(
        f"""SELECT count(*), count(*) FILTER (WHERE endpoint = 'route'),
                   count(*) FILTER (WHERE endpoint = 'tool_search'), count(*) FILTER (WHERE endpoint = 'filter'),
                   count(*) FILTER (WHERE endpoint = 'proxy'), coalesce(sum(latency_ms), 0),
                   percentile_cont(0.5) WITHIN GROUP (ORDER BY latency_ms),
                   percentile_cont(0.95) WITHIN GROUP (ORDER BY latency_ms),
                   coalesce(sum(tokens_selected), 0), coalesce(sum(tokens_catalog), 0),
                   coalesce(sum(tokens_saved), 0),
                   count(*) FILTER (WHERE confidence < %s),
                   count(*) FILTER (WHERE jsonb_array_length(results) = 0),
                   {strategy_counts}
            FROM {LOG_TABLE} WHERE {where}""",
        [settings.USAGE_LOW_CONFIDENCE, *params],
    )[0]
    histogram = [0] * (len(LATENCY_BUCKETS_MS) + 1)
    for bucket, count in _fetchall(
        f"""SELECT width_bucket(latency_ms, %s::float8[]), count(*) FROM {LOG_TABLE}
            WHERE {where} GROUP BY 1""",
        [list(map(float, LATENCY_BUCKETS_MS)), *params],
    ):
        histogram[bucket] = count
    return Totals(
        requests=row[0], route_requests=row[1], tool_search_requests=row[2], filter_requests=row[3],
        proxy_requests=row[4], latency_sum_ms=float(row[5]), latency_p50_ms=row[6], latency_p95_ms=row[7],
        latency_histogram=histogram, tokens_selected=int(row[8]), tokens_catalog=int(row[9]),
        tokens_saved=int(row[10]), low_confidence=row[11], no_results=row[12],
        strategies=dict(zip(STRATEGY_CLASSES, row[13:])),
    )


# FeedbackTotals' fields, in order, over feedback rows `f`.
_FEEDBACK_SUMS = """count(*), count(*) FILTER (WHERE success), count(*) FILTER (WHERE NOT success),
    coalesce(sum(cardinality(used_tools)), 0), coalesce(sum(cardinality(offered_and_used)), 0),
    coalesce(sum(cardinality(missed)), 0), count(*) FILTER (WHERE source = 'proxy'),
    count(*) FILTER (WHERE cardinality(offered_and_used) + cardinality(missed) > 0),
    coalesce(sum((SELECT sum(r) FROM unnest(used_ranks) r WHERE r > 0)), 0),
    coalesce(sum((SELECT count(*) FROM unnest(used_ranks) r WHERE r > 0)), 0)"""


def window_feedback_totals(start: datetime, end: datetime, client: str | None = None) -> FeedbackTotals:
    where, params = feedback_window(start, end, client)
    row = _fetchall(f"SELECT {_FEEDBACK_SUMS} FROM routing_feedback f WHERE {where}", params)[0]
    return FeedbackTotals(*map(int, row))


def window_feedback_series(start: datetime, end: datetime, bucket: str,
                           client: str | None = None) -> dict[datetime, FeedbackTotals]:
    """The feedback of a window per hour or day of its arrival, only those with feedback. (A day's rollup
    counts it on its request's day instead; the raw days are today's, where the two agree but for
    feedback that arrives after midnight.)"""
    assert bucket in ("hour", "day")  # interpolated into SQL below
    where, params = feedback_window(start, end, client)
    rows = _fetchall(
        f"""SELECT date_trunc('{bucket}', f.created_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', {_FEEDBACK_SUMS}
            FROM routing_feedback f WHERE {where} GROUP BY 1 ORDER BY 1""",
        params,
    )
    return {row[0]: FeedbackTotals(*map(int, row[1:])) for row in rows}


def window_tools(start: datetime, end: datetime, client: str | None = None) -> list[ToolUsage]:
    tools: dict[str, ToolUsage] = {}
    where, params = _log_window(start, end, client, alias="l")
    for name, count in _fetchall(
        f"""SELECT r->>'name', count(*) FROM {LOG_TABLE} l, jsonb_array_elements(l.results) r
            WHERE {where} GROUP BY 1""",
        params,
    ):
        tools.setdefault(name, ToolUsage(name)).offered = count
    feedback_where, feedback_params = feedback_window(start, end, client)
    for column, attribute in (("offered_and_used", "used"), ("offered_unused", "unused"), ("missed", "missed")):
        for name, count in _fetchall(
            f"""SELECT t, count(*) FROM routing_feedback f, unnest(f.{column}) t
                WHERE {feedback_where} GROUP BY 1""",
            feedback_params,
        ):
            setattr(tools.setdefault(name, ToolUsage(name)), attribute, count)
    return list(tools.values())


def window_clients(start: datetime, end: datetime, client: str | None = None) -> list[ClientUsage]:
    where, params = _log_window(start, end, client)
    return [
        ClientUsage(name, requests, float(latency), int(saved), int(catalog), fallback)
        for name, requests, latency, saved, catalog, fallback in _fetchall(
            f"""SELECT client, count(*), sum(latency_ms), sum(tokens_saved), sum(tokens_catalog),
                       count(*) FILTER (WHERE fallback)
                FROM {LOG_TABLE} WHERE {where} GROUP BY client""",
            params,
        )
    ]


def window_categories(start: datetime, end: datetime, client: str | None = None) -> list[tuple[str, int]]:
    where, params = _log_window(start, end, client, alias="l")
    return _fetchall(
        f"""SELECT c, count(*) FROM {LOG_TABLE} l, unnest(l.categories) c
            WHERE {where} GROUP BY 1""",
        params,
    )


# usage.services.query_hash in SQL (lower() for casefold()): hypothetical queries match the log by hash.
_SQL_QUERY_HASH = "encode(sha256(convert_to(lower(btrim(regexp_replace({text}, '\\s+', ' ', 'g'))), 'UTF8')), 'hex')"
_MISS_CONDITION = "query_hash <> '' AND (jsonb_array_length(results) = 0 OR confidence < %s)"
CONTEXT_NAMES = 10  # clients and strategies kept per missed query and day


def window_misses(start: datetime, end: datetime, client: str | None = None) -> list[QueryMiss]:
    where, params = _log_window(start, end, client)
    return [
        QueryMiss(*row)
        for row in _fetchall(
            f"""SELECT query_hash, max(query), count(*), count(*) FILTER (WHERE jsonb_array_length(results) = 0),
                       max(confidence), (array_agg(DISTINCT client))[1:{CONTEXT_NAMES}],
                       (array_agg(DISTINCT strategy))[1:{CONTEXT_NAMES}]
                FROM {LOG_TABLE} WHERE {where} AND {_MISS_CONDITION}
                GROUP BY query_hash""",
            [*params, settings.USAGE_LOW_CONFIDENCE],
        )
    ]


def window_series(start: datetime, end: datetime, bucket: str, client: str | None = None) -> list[SeriesPoint]:
    assert bucket in ("hour", "day")  # interpolated into SQL below
    where, params = _log_window(start, end, client)
    return [
        SeriesPoint(row[0], row[1], row[2], row[3], tokens_saved=int(row[4]))
        for row in _fetchall(
            f"""SELECT date_trunc('{bucket}', created_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', count(*),
                       percentile_cont(0.5) WITHIN GROUP (ORDER BY latency_ms),
                       percentile_cont(0.95) WITHIN GROUP (ORDER BY latency_ms), coalesce(sum(tokens_saved), 0)
                FROM {LOG_TABLE} WHERE {where} GROUP BY 1 ORDER BY 1""",
            params,
        )
    ]


# --- ranges: rollups for finished days + raw rows for the rest ---------------------------------

@dataclass(frozen=True)
class UsageRange:
    key: str  # "24h", "7d", "30d" or "custom"
    start: datetime
    end: datetime
    bucket: str  # "hour" or "day": one chart point each
    rollup_days: tuple[date, date] | None  # inclusive, read from the rollups
    raw_start: datetime  # raw rows from here to `end`
    client: str | None = None  # only this client's requests

    @property
    def first_day(self) -> date:
        return self.start.astimezone(UTC).date()

    @property
    def last_day(self) -> date:
        return (self.end - timedelta(microseconds=1)).astimezone(UTC).date()


def resolve_range(key: str, now: datetime | None = None, *, first: date | None = None, last: date | None = None,
                  client: str | None = None) -> UsageRange:
    """A preset range ("24h", "7d", "30d"), or with key "custom" the UTC days `first` to `last`.

    Finished days come from the rollups of all clients, or of `client` when one is given.
    """
    now = now or timezone.now()
    today = now.astimezone(UTC).date()
    if key == "custom" and first is not None and last is not None:
        last = min(last, today)
        first = min(first, last)
        end = now if last == today else utc_day_start(last + timedelta(days=1))
    else:
        key = key if key in RANGE_DAYS else DEFAULT_RANGE
        if key == "24h":
            start = now - timedelta(hours=24)
            return UsageRange(key, start, now, "hour", None, start, client)
        first, end = today - timedelta(days=RANGE_DAYS[key] - 1), now
    start = utc_day_start(first)
    # Rollups hold finished days only: those of the range before `end` and before today. The rows
    # of all clients exist for every rolled-up day, those of one client only for its busy days.
    before = min(end, utc_day_start(today)).astimezone(UTC).date()
    last_rolled = (DailyUsage.objects.filter(client=None, day__gte=first, day__lt=before)
                   .aggregate(last=Max("day"))["last"])
    if last_rolled is None:
        return UsageRange(key, start, end, "day", None, start, client)
    return UsageRange(key, start, end, "day", (first, last_rolled),
                      min(utc_day_start(last_rolled + timedelta(days=1)), end), client)


def _rolled_up(model: type[RollupModel], r: UsageRange) -> QuerySet[RollupModel]:
    """The rollup rows of the range's finished days: of its client, or of all clients together."""
    return model.objects.filter(day__range=r.rollup_days, client=r.client)


def range_totals(r: UsageRange) -> Totals:
    raw = window_totals(r.raw_start, r.end, r.client)
    if r.rollup_days is None:
        return raw
    rows: list[dict[str, Any]] = [dict(row) for row in _rolled_up(DailyUsage, r).values()]
    totals, busy = raw, [raw] if raw.requests else []
    for row in rows:
        day = Totals(
            **{k: row[k] for k in ("requests", "route_requests", "tool_search_requests", "filter_requests",
                                   "proxy_requests", "latency_sum_ms", "latency_p50_ms", "latency_p95_ms",
                                   "tokens_selected", "tokens_catalog", "tokens_saved", "low_confidence", "no_results")},
            latency_histogram=row["latency_histogram"],
            strategies={name: row[f"strategy_{name}"] for name in STRATEGY_CLASSES},
        )
        totals = totals.merged(day)
        if day.requests:
            busy.append(day)
    return _exact_percentiles(totals, busy, r)


# Above this many requests a range's p50/p95 come from the daily histograms: sorting the raw rows
# of a busy month would cost the page more than the exact figure is worth (bench/bench_usage.py).
EXACT_PERCENTILES_MAX_ROWS = 50_000


def _exact_percentiles(totals: Totals, busy: list[Totals], r: UsageRange) -> Totals:
    """The range's exact p50/p95 wherever they exist: those stored for its only busy day (or of its raw
    part), else those of its raw rows while every one of them is still kept; the histogram's otherwise."""
    if not busy:
        return replace(totals, latency_p50_ms=None, latency_p95_ms=None, percentiles_exact=True)
    if len(busy) == 1 and busy[0].latency_p50_ms is not None:
        return replace(totals, latency_p50_ms=busy[0].latency_p50_ms, latency_p95_ms=busy[0].latency_p95_ms,
                       percentiles_exact=True)
    if totals.requests <= EXACT_PERCENTILES_MAX_ROWS:
        # Pruned days (or a backlog drained after its day was rolled up) leave a different number of
        # raw rows than the rollups count: their percentiles would not be of the range's requests.
        raw = window_totals(r.start, r.end, r.client)
        if raw.requests == totals.requests:
            return replace(totals, latency_p50_ms=raw.latency_p50_ms, latency_p95_ms=raw.latency_p95_ms,
                           percentiles_exact=True)
    return totals


def range_feedback_series(r: UsageRange) -> list[tuple[datetime, FeedbackTotals]]:
    """The feedback per hour or day that has some, oldest first: finished days from the rollups, the rest raw."""
    points = window_feedback_series(r.raw_start, r.end, r.bucket, r.client)
    if r.rollup_days is not None:
        names = list(asdict(FeedbackTotals()))
        for row in _rolled_up(DailyUsage, r).filter(feedback__gt=0).values("day", *names):
            start = utc_day_start(row.pop("day"))
            points[start] = FeedbackTotals(**row).merged(points.get(start, FeedbackTotals()))
    return sorted(points.items(), key=lambda point: point[0])


def feedback_total(series: list[tuple[datetime, FeedbackTotals]]) -> FeedbackTotals:
    """The feedback of a whole range, from its series: the dashboard's cards and its learning card read
    the range's feedback once."""
    total = FeedbackTotals()
    for _start, figures in series:
        total = total.merged(figures)
    return total


def range_series(r: UsageRange) -> list[SeriesPoint]:
    """One point per hour (24 h) or day, zero-filled so that the time axis has no gaps."""
    points = {p.start: p for p in window_series(r.raw_start, r.end, r.bucket, r.client)}
    if r.rollup_days is not None:
        for row in _rolled_up(DailyUsage, r):
            start = utc_day_start(row.day)
            points[start] = SeriesPoint(start, row.requests, row.latency_p50_ms, row.latency_p95_ms, row.tokens_saved)
    step = timedelta(hours=1) if r.bucket == "hour" else timedelta(days=1)
    cursor = r.start.replace(minute=0, second=0, microsecond=0)
    if r.bucket == "day":
        cursor = cursor.replace(hour=0)
    series = []
    while cursor < r.end:
        series.append(points.get(cursor) or SeriesPoint(cursor))
        cursor += step
    return series


def range_tools(r: UsageRange) -> list[ToolUsage]:
    tools = {t.tool: t for t in window_tools(r.raw_start, r.end, r.client)}
    if r.rollup_days is not None:
        for row in (_rolled_up(DailyToolUsage, r).values("tool")
                    .annotate(offered=Sum("offered"), used=Sum("used"), unused=Sum("unused"), missed=Sum("missed"))):
            tool = tools.setdefault(row["tool"], ToolUsage(row["tool"]))
            for attribute in ("offered", "used", "unused", "missed"):
                setattr(tool, attribute, getattr(tool, attribute) + row[attribute])
    return list(tools.values())


def range_clients(r: UsageRange) -> list[ClientUsage]:
    clients = {c.client: c for c in window_clients(r.raw_start, r.end, r.client)}
    if r.rollup_days is not None:
        one_or_every_client = (DailyUsage.objects.filter(client=r.client) if r.client is not None
                               else DailyUsage.objects.exclude(client=None))
        for row in (one_or_every_client.filter(day__range=r.rollup_days).values("client")
                    .annotate(requests=Sum("requests"), latency_sum_ms=Sum("latency_sum_ms"),
                              tokens_saved=Sum("tokens_saved"), tokens_catalog=Sum("tokens_catalog"),
                              fallback=Sum("strategy_fallback"))):
            client = clients.setdefault(row["client"], ClientUsage(row["client"]))
            for attribute in ("requests", "latency_sum_ms", "tokens_saved", "tokens_catalog", "fallback"):
                setattr(client, attribute, getattr(client, attribute) + row[attribute])
    return sorted(clients.values(), key=lambda c: (-c.requests, c.client))


def range_categories(r: UsageRange) -> list[tuple[str, int]]:
    counts = dict(window_categories(r.raw_start, r.end, r.client))
    if r.rollup_days is not None:
        for row in (_rolled_up(DailyCategoryUsage, r).values("category")
                    .annotate(requests=Sum("requests"))):
            counts[row["category"]] = counts.get(row["category"], 0) + row["requests"]
    return sorted(counts.items(), key=lambda item: (-item[1], item[0]))


def curation_list(r: UsageRange, limit: int = 25) -> list[QueryMiss]:
    """Queries that found nothing or only low-confidence tools, most frequent first; without
    those an operator dismissed or already added as a hypothetical query of some tool."""
    raw_where, params = _log_window(r.raw_start, r.end, r.client)
    params.append(settings.USAGE_LOW_CONFIDENCE)
    rollup_part = ""
    if r.rollup_days is not None:
        client_condition = "client IS NULL" if r.client is None else "client = %s"
        rollup_part = f"""UNION ALL SELECT query_hash, query, count, no_results, best_confidence
                          FROM {DailyQueryMiss._meta.db_table} WHERE day BETWEEN %s AND %s AND {client_condition}"""
        params += [*r.rollup_days, *([] if r.client is None else [r.client])]
    misses = [
        QueryMiss(*row)
        for row in _fetchall(
            f"""WITH grouped AS (
                  SELECT query_hash, max(query) AS query, sum(count)::int AS count,
                         sum(no_results)::int AS no_results, max(best_confidence) AS best_confidence
                  FROM (SELECT query_hash, query, 1 AS count,
                               CASE WHEN jsonb_array_length(results) = 0 THEN 1 ELSE 0 END AS no_results,
                               confidence AS best_confidence
                        FROM {LOG_TABLE} WHERE {raw_where} AND {_MISS_CONDITION}
                        {rollup_part}) misses
                  GROUP BY query_hash)
                SELECT g.query_hash, g.query, g.count, g.no_results, g.best_confidence FROM grouped g
                WHERE g.query_hash NOT IN (SELECT query_hash FROM {DismissedQuery._meta.db_table})
                  AND g.query_hash NOT IN (SELECT {_SQL_QUERY_HASH.format(text="h.text")}
                                           FROM {HypotheticalQuery._meta.db_table} h)
                ORDER BY 3 DESC, 2 LIMIT %s""",
            params + [limit],
        )
    ]
    _add_context(misses, r)
    return misses


def _add_context(misses: list[QueryMiss], r: UsageRange) -> None:
    """Who asked each listed query and which strategies answered it."""
    hashes = [m.query_hash for m in misses]
    if not hashes:
        return
    clients: dict[str, set[str]] = {h: set() for h in hashes}
    strategies: dict[str, set[str]] = {h: set() for h in hashes}
    raw_where, params = _log_window(r.raw_start, r.end, r.client)
    rows = _fetchall(
        f"""SELECT query_hash, array_agg(DISTINCT client), array_agg(DISTINCT strategy) FROM {LOG_TABLE}
            WHERE {raw_where} AND query_hash = ANY(%s) GROUP BY 1""",
        params + [hashes],
    )
    if r.rollup_days is not None:
        rows += list(_rolled_up(DailyQueryMiss, r).filter(query_hash__in=hashes)
                     .values_list("query_hash", "clients", "strategies"))
    for query_hash, names, used in rows:
        clients[query_hash].update(names or ())
        strategies[query_hash].update(used or ())
    for miss in misses:
        miss.clients = sorted(clients[miss.query_hash])
        miss.strategies = sorted(s for s in strategies[miss.query_hash] if s)


def tool_names() -> list[str]:
    return list(Tool.objects.order_by("name").values_list("name", flat=True))


# --- the dashboard -----------------------------------------------------------------------------

@dataclass
class StrategyShare:
    key: str
    label: str
    count: int
    share: float | None


@dataclass
class DashboardData:
    range: UsageRange
    totals: Totals
    feedback: FeedbackTotals
    feedback_series: list[tuple[datetime, FeedbackTotals]]  # per hour or day with feedback: the learning card's
    series: list[SeriesPoint]
    strategies: list[StrategyShare]
    top_tools: list[ToolUsage]  # ranked tools, most offered first (core tools are apart)
    core_tools: list[ToolUsage]  # always offered, whatever the query
    missed_tools: list[ToolUsage]
    never_offered: list[str]  # enabled tools no request of the range was offered (the first `list_limit`)
    never_offered_total: int
    never_used: list[ToolUsage]  # offered, but no feedback says an agent called them
    top_categories: list[tuple[str, int]]
    clients: list[ClientUsage]
    curation: list[QueryMiss]
    tool_ids: dict[str, int] = field(default_factory=dict)  # admin links of the tools shown


def dashboard_data(range_or_key: UsageRange | str, now: datetime | None = None, *,
                   top: int = 15, list_limit: int = 50) -> DashboardData:
    r = range_or_key if isinstance(range_or_key, UsageRange) else resolve_range(range_or_key, now)
    totals = range_totals(r)
    feedback_series = range_feedback_series(r)
    feedback = feedback_total(feedback_series)
    tools = range_tools(r)
    core_names = set(Tool.objects.filter(core=True).values_list("name", flat=True))
    offered = [t.tool for t in tools if t.offered]
    ranked = [t for t in tools if t.tool not in core_names and t.offered]
    unoffered = Tool.objects.filter(enabled=True).exclude(name__in=offered)
    labels = dict(StrategyClass.choices)
    data = DashboardData(
        range=r,
        totals=totals,
        feedback=feedback,
        feedback_series=feedback_series,
        series=range_series(r),
        strategies=[StrategyShare(name, labels[name], totals.strategies[name],
                                  _share(totals.strategies[name], totals.requests))
                    for name in STRATEGY_CLASSES],
        top_tools=sorted(ranked, key=lambda t: (-t.offered, t.tool))[:top],
        core_tools=sorted((t for t in tools if t.tool in core_names), key=lambda t: (-t.offered, t.tool)),
        missed_tools=sorted((t for t in tools if t.missed), key=lambda t: (-t.missed, t.tool))[:10],
        never_offered=list(unoffered.order_by("name").values_list("name", flat=True)[:list_limit]),
        never_offered_total=unoffered.count(),
        never_used=sorted((t for t in ranked if not t.used and feedback.feedback),
                          key=lambda t: (-t.offered, t.tool))[:list_limit],
        top_categories=range_categories(r)[:12],
        clients=range_clients(r),
        curation=curation_list(r),
    )
    shown = {t.tool for t in [*data.top_tools, *data.core_tools, *data.missed_tools, *data.never_used]}
    shown.update(data.never_offered)
    data.tool_ids = ids_by_name("tool", shown)
    return data


# --- CSV export --------------------------------------------------------------------------------

EXPORT_COLUMNS = ("created_at", "request_id", "client", "toolset", "endpoint", "query", "query_hash", "strategy",
                  "strategy_class", "confidence", "fallback", "categories", "results", "latency_ms",
                  "tokens_selected", "tokens_catalog", "tokens_saved", "session_id")


def export_rows(r: UsageRange) -> Iterator[tuple]:
    """Raw rows of the range (and client), oldest first, read with a server-side cursor (months do not fit in memory)."""
    rows = RequestLog.objects.filter(created_at__gte=r.start, created_at__lt=r.end)
    if r.client is not None:
        rows = rows.filter(client=r.client)
    return rows.order_by("created_at", "id").values_list(*EXPORT_COLUMNS).iterator(chunk_size=2000)


def confirmed_queries(limit: int = 2000) -> list[tuple[str, str]]:
    """(query, tool) pairs the traffic confirmed: a logged request whose query was stored and
    whose feedback says the agent then used that tool, newest first, each pair once. Queries
    stored only as a hash, or not at all, never appear (USAGE_QUERY_STORAGE)."""
    rows = _fetchall(
        f"""
        SELECT r.query, used.tool
        FROM {RequestLog._meta.db_table} r
        JOIN {Feedback._meta.db_table} f ON f.request_id = r.request_id
        CROSS JOIN LATERAL unnest(f.used_tools) AS used(tool)
        WHERE r.query IS NOT NULL AND r.query <> ''
        GROUP BY r.query, used.tool
        ORDER BY max(f.created_at) DESC
        LIMIT %s
        """,
        [limit],
    )
    return [(query, tool) for query, tool in rows]
