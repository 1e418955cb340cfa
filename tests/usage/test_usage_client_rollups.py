"""Each client's day is rolled up too, so one client's dashboard reads rollups and outlives retention."""
from datetime import date

import pytest

from usage import selectors
from usage import services as usage
from usage.models import DailyCategoryUsage, DailyQueryMiss, DailyToolUsage, DailyUsage, Feedback, RequestLog

from .records import at, make_record

pytestmark = pytest.mark.django_db

NOW = at("2026-03-10 12:00")
MUSIC = [{"name": "play_music", "rank": 1, "score": 0.9}]
WEATHER = [{"name": "get_weather", "rank": 1, "score": 0.2}]


@pytest.fixture
def traffic() -> None:
    """alpha: two music requests on March 8th (one a fallback); beta: a miss on the 8th and a weather
    request on the 9th with feedback; a request without an API key; alpha again today."""
    records = [
        make_record(request_id="a1", created_at=at("2026-03-08 09:00"), latency_ms=10, client="alpha", results=MUSIC),
        make_record(request_id="a2", created_at=at("2026-03-08 10:00"), latency_ms=20, client="alpha",
                    strategy="hybrid", fallback=True, results=MUSIC),
        make_record(request_id="b1", created_at=at("2026-03-08 11:00"), latency_ms=30, client="beta",
                    query="xyzzy", results=[], confidence=None, categories=[]),
        make_record(request_id="b2", created_at=at("2026-03-09 08:00"), latency_ms=5, client="beta",
                    strategy="vector", categories=["weather"], results=WEATHER, query="is it sunny", confidence=0.2),
        make_record(request_id="anonymous", created_at=at("2026-03-09 09:00"), latency_ms=7, client=""),
        make_record(request_id="a3", created_at=at("2026-03-10 08:00"), latency_ms=4, client="alpha"),
    ]
    for record in records:
        usage.record_request(record)
    usage.drain_request_buffer()
    usage.record_feedback(request_id="b2", used_tools=["get_weather", "get_forecast"], success=True, api_key_id=None)
    Feedback.objects.filter(request_id="b2").update(created_at=at("2026-03-09 08:01"))


def _client_view(client: str | None) -> selectors.DashboardData:
    return selectors.dashboard_data(selectors.resolve_range("7d", NOW, client=client))


@pytest.mark.usefixtures("traffic")
def test_each_client_of_a_day_gets_its_own_rollup_rows() -> None:
    usage.prune_and_roll_up(NOW)
    alpha = DailyUsage.objects.get(client="alpha", day=date(2026, 3, 8))
    assert (alpha.requests, alpha.strategy_fallback, alpha.latency_sum_ms) == (2, 1, 30.0)
    assert DailyToolUsage.objects.get(client="alpha", day=date(2026, 3, 8), tool="play_music").offered == 2
    assert DailyCategoryUsage.objects.get(client="alpha", day=date(2026, 3, 8), category="music").requests == 2
    beta_miss = DailyQueryMiss.objects.get(client="beta", day=date(2026, 3, 8))
    assert (beta_miss.query, beta_miss.clients) == ("xyzzy", ["beta"])
    beta = DailyUsage.objects.get(client="beta", day=date(2026, 3, 9))
    assert (beta.feedback, beta.tools_missed) == (1, 1)
    assert DailyUsage.objects.get(client="", day=date(2026, 3, 9)).requests == 1  # no API key is a client too
    assert not DailyUsage.objects.filter(client="alpha", day=date(2026, 3, 9)).exists()  # an idle day has no row


@pytest.mark.usefixtures("traffic")
@pytest.mark.parametrize("client", ["alpha", "beta"])
def test_a_client_view_reads_the_same_before_and_after_the_roll_up(client: str) -> None:
    before = _client_view(client)
    usage.prune_and_roll_up(NOW)
    after = _client_view(client)
    assert before.range.rollup_days is None
    assert after.range.rollup_days == (date(2026, 3, 4), date(2026, 3, 9))
    assert after.totals.requests == before.totals.requests
    assert after.totals.strategies == before.totals.strategies
    assert after.feedback == before.feedback
    assert sorted(map(vars, after.top_tools), key=str) == sorted(map(vars, before.top_tools), key=str)
    assert [(t.tool, t.missed) for t in after.missed_tools] == [(t.tool, t.missed) for t in before.missed_tools]
    assert after.top_categories == before.top_categories
    assert [(m.query, m.count) for m in after.curation] == [(m.query, m.count) for m in before.curation]
    assert [(p.start, p.requests) for p in after.series] == [(p.start, p.requests) for p in before.series]
    assert [(c.client, c.requests, c.fallback) for c in after.clients] == [
        (c.client, c.requests, c.fallback) for c in before.clients]


@pytest.mark.usefixtures("traffic")
def test_a_client_view_outlives_the_raw_rows(settings) -> None:
    usage.prune_and_roll_up(NOW)
    settings.USAGE_RETENTION_DAYS = 1
    usage.prune_and_roll_up(NOW)
    assert not RequestLog.objects.filter(client="alpha", request_id__in=["a1", "a2"]).exists()
    alpha = _client_view("alpha")
    assert alpha.totals.requests == 3  # two rolled up on the 8th, one raw today
    assert [(t.tool, t.offered) for t in alpha.top_tools] == [("play_music", 3), ("search_music", 1)]
    assert alpha.top_categories == [("music", 3)]
    assert [(c.client, c.requests, c.fallback) for c in alpha.clients] == [("alpha", 3, 1)]
    beta = _client_view("beta")
    assert [m.query for m in beta.curation] == ["is it sunny", "xyzzy"]
    assert beta.totals.requests == 2


@pytest.mark.usefixtures("traffic")
def test_the_all_clients_view_counts_every_request_once() -> None:
    usage.prune_and_roll_up(NOW)
    every = _client_view(None)
    assert every.totals.requests == 6
    assert sum(c.requests for c in every.clients) == 6
    assert {c.client for c in every.clients} == {"alpha", "beta", ""}
    assert [(m.query, m.count) for m in every.curation] == [("is it sunny", 1), ("xyzzy", 1)]
