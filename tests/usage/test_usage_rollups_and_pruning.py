from datetime import date

import pytest

from usage import selectors
from usage import services as usage
from usage.models import (
    DailyCategoryUsage,
    DailyQueryMiss,
    DailyToolUsage,
    DailyUsage,
    Feedback,
    RequestLog,
)

from .records import at, make_record

pytestmark = pytest.mark.django_db

NOW = at("2026-03-10 12:00")
MUSIC = [{"name": "play_music", "rank": 1, "score": 0.9}]


@pytest.fixture
def traffic() -> None:
    """Three requests on March 8th, two on the 9th, one today, one long past retention."""
    records = [
        make_record(request_id="a", created_at=at("2026-03-08 09:00"), latency_ms=10, client="alpha", results=MUSIC),
        make_record(request_id="b", created_at=at("2026-03-08 10:00"), latency_ms=20, client="alpha",
                    strategy="hybrid", fallback=True, results=MUSIC),
        make_record(request_id="c", created_at=at("2026-03-08 11:00"), latency_ms=30, client="beta",
                    query="xyzzy", results=[], confidence=None, categories=[]),
        make_record(request_id="d", created_at=at("2026-03-09 08:00"), latency_ms=5, client="beta",
                    strategy="vector", categories=["weather"], results=[{"name": "get_weather", "rank": 1, "score": 0.2}],
                    query="is it sunny", confidence=0.2),
        make_record(request_id="e", created_at=at("2026-03-09 09:00"), latency_ms=7, strategy="hierarchical"),
        make_record(request_id="today", created_at=at("2026-03-10 08:00"), latency_ms=4),
        make_record(request_id="ancient", created_at=at("2026-01-01 08:00"), latency_ms=4),
    ]
    for record in records:
        usage.record_request(record)
    usage.drain_request_buffer()
    usage.record_feedback(request_id="d", used_tools=["get_weather", "get_forecast"], success=True, api_key_id=None)
    Feedback.objects.filter(request_id="d").update(created_at=at("2026-03-09 08:01"))


@pytest.mark.usefixtures("traffic")
def test_finished_days_are_rolled_up_with_their_figures() -> None:
    usage.prune_and_roll_up(NOW)
    day = DailyUsage.objects.get(client=None, day=date(2026, 3, 8))
    assert (day.requests, day.latency_p50_ms, day.latency_p95_ms) == (3, 20.0, 29.0)
    assert (day.strategy_fast, day.strategy_fallback, day.no_results) == (2, 1, 1)
    assert (day.tokens_saved, day.tokens_catalog) == (3 * 9_600, 3 * 10_000)
    assert sum(day.latency_histogram) == 3
    assert DailyToolUsage.objects.get(client=None, day=day.day, tool="play_music").offered == 2
    assert DailyCategoryUsage.objects.get(client=None, day=day.day, category="music").requests == 2
    miss = DailyQueryMiss.objects.get(client=None, day=day.day)
    assert (miss.query, miss.count, miss.no_results) == ("xyzzy", 1, 1)


@pytest.mark.usefixtures("traffic")
def test_feedback_is_rolled_up_per_tool() -> None:
    usage.prune_and_roll_up(NOW)
    day = DailyUsage.objects.get(client=None, day=date(2026, 3, 9))
    assert (day.feedback, day.feedback_success, day.tools_used, day.tools_offered_and_used, day.tools_missed) == (
        1, 1, 2, 1, 1)
    assert DailyToolUsage.objects.get(client=None, day=day.day, tool="get_weather").used == 1
    assert DailyToolUsage.objects.get(client=None, day=day.day, tool="get_forecast").missed == 1
    assert DailyUsage.objects.get(client=None, day=date(2026, 3, 9)).strategy_semantic == 1


@pytest.mark.usefixtures("traffic")
def test_raw_rows_past_retention_are_pruned_and_their_rollups_stay(settings) -> None:
    settings.USAGE_RETENTION_DAYS = 30
    result = usage.prune_and_roll_up(NOW)
    assert result["pruned_requests"] == 1
    assert not RequestLog.objects.filter(request_id="ancient").exists()
    assert DailyUsage.objects.get(client=None, day=date(2026, 1, 1)).requests == 1
    assert RequestLog.objects.filter(request_id="today").exists()


@pytest.mark.usefixtures("traffic")
def test_every_finished_day_gets_a_row_even_without_traffic() -> None:
    usage.prune_and_roll_up(NOW)
    days = list(DailyUsage.objects.filter(client=None).values_list("day", flat=True))
    assert days[0] == date(2026, 1, 1) and days[-1] == date(2026, 3, 9)
    assert len(days) == (date(2026, 3, 9) - date(2026, 1, 1)).days + 1
    assert not DailyUsage.objects.filter(day=date(2026, 3, 10)).exists()  # today is not finished


@pytest.mark.usefixtures("traffic")
def test_rolling_up_again_is_idempotent_and_takes_late_records() -> None:
    usage.prune_and_roll_up(NOW)
    usage.record_request(make_record(request_id="late", created_at=at("2026-03-09 23:59")))
    result = usage.prune_and_roll_up(NOW)
    assert result["rolled_up"] == ["2026-03-08", "2026-03-09"]
    assert DailyUsage.objects.get(client=None, day=date(2026, 3, 9)).requests == 3
    assert DailyUsage.objects.get(client=None, day=date(2026, 3, 8)).requests == 3
    assert DailyToolUsage.objects.filter(client=None, day=date(2026, 3, 8), tool="play_music").count() == 1
    assert DailyToolUsage.objects.filter(client="alpha", day=date(2026, 3, 8), tool="play_music").count() == 1


@pytest.mark.usefixtures("traffic")
def test_the_dashboard_reads_the_same_before_and_after_the_roll_up() -> None:
    before = selectors.dashboard_data("7d", NOW)
    usage.prune_and_roll_up(NOW)
    after = selectors.dashboard_data("7d", NOW)
    assert after.range.rollup_days == (date(2026, 3, 4), date(2026, 3, 9))
    assert before.range.rollup_days is None
    assert after.totals.requests == before.totals.requests == 6
    assert after.totals.tokens_saved == before.totals.tokens_saved
    assert after.totals.strategies == before.totals.strategies
    assert after.feedback == before.feedback
    assert sorted(map(vars, after.top_tools), key=str) == sorted(map(vars, before.top_tools), key=str)
    assert [(m.query, m.count) for m in after.curation] == [(m.query, m.count) for m in before.curation]
    assert [(p.start, p.requests) for p in after.series] == [(p.start, p.requests) for p in before.series]
    assert after.top_categories == before.top_categories
    assert [(c.client, c.requests) for c in after.clients] == [(c.client, c.requests) for c in before.clients]


@pytest.mark.usefixtures("traffic")
def test_range_percentiles_over_pruned_days_come_from_the_histograms(settings) -> None:
    settings.USAGE_RETENTION_DAYS = 2
    usage.prune_and_roll_up(at("2026-03-11 01:00"))  # March 8th's raw rows are gone
    totals = selectors.dashboard_data("7d", NOW).totals
    assert not totals.percentiles_exact
    assert 5 <= totals.latency_p50_ms <= 10
    assert 20 <= totals.latency_p95_ms <= 50  # within a bucket of the true value (27.5)


def test_the_beat_schedule_drains_every_few_seconds_and_rolls_up_daily(settings) -> None:
    schedule = settings.CELERY_BEAT_SCHEDULE
    from usage.tasks import drain_request_log, prune_and_roll_up_usage

    assert schedule["usage-drain-request-log"]["task"] == drain_request_log.name == "usage.tasks.drain_request_log"
    assert schedule["usage-drain-request-log"]["schedule"] <= 5
    assert schedule["usage-prune-and-roll-up"]["task"] == prune_and_roll_up_usage.name
