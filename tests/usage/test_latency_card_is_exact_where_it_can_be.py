"""The latency card's p50 / p95 are exact wherever they can be: a rolled-up day's stored figures, or the
raw rows of a range whose rows are all still kept. Only a range with pruned days reads the daily
histograms, marked "≈", and a figure in their open top bucket (above 5,000 ms) reads "≥ 5,000"."""
from __future__ import annotations

import re
from datetime import date, timedelta

import pytest
from django.test import Client
from django.utils import timezone

from usage import selectors
from usage import services as usage

from .records import at, make_record

pytestmark = pytest.mark.django_db

NOW = at("2026-03-10 12:00")


def _log(latencies: dict[str, list[float]]) -> None:
    for day, values in latencies.items():
        for value in values:
            usage.record_request(make_record(created_at=at(f"{day} 10:00"), latency_ms=value))
    usage.drain_request_buffer()


def _card(staff_client: Client, params: dict[str, str]) -> str:
    html = staff_client.get("/dashboard/", params).content.decode()
    return re.search(r'<h2>Latency p50 / p95</h2>\s*<p class="figure"[^>]*>([^<]*)<', html).group(1)


def test_a_single_rolled_up_day_shows_its_stored_percentiles() -> None:
    _log({"2026-03-08": [10, 20, 30]})
    usage.prune_and_roll_up(NOW)
    totals = selectors.dashboard_data(selectors.resolve_range("custom", NOW, first=date(2026, 3, 8),
                                                              last=date(2026, 3, 8))).totals
    assert (totals.latency_p50_ms, totals.latency_p95_ms, totals.percentiles_exact) == (20.0, 29.0, True)


def test_days_whose_raw_rows_are_kept_give_exact_percentiles() -> None:
    _log({"2026-03-08": [10, 20, 30], "2026-03-09": [5, 7], "2026-03-10": [4]})
    usage.prune_and_roll_up(NOW)
    totals = selectors.dashboard_data("7d", NOW).totals
    assert (totals.latency_p50_ms, totals.latency_p95_ms, totals.percentiles_exact) == (8.5, 27.5, True)


def test_only_todays_traffic_in_a_range_of_rolled_up_days_is_exact() -> None:
    _log({"2026-03-05": [1000]})
    usage.prune_and_roll_up(NOW)
    usage.prune_and_roll_up(at("2026-03-20 12:00"))  # March 5th is rolled up and its raw row is kept
    _log({"2026-03-20": [10, 20, 30]})
    totals = selectors.dashboard_data("7d", at("2026-03-20 12:00")).totals
    assert (totals.latency_p50_ms, totals.latency_p95_ms, totals.percentiles_exact) == (20.0, 29.0, True)


def _days_ago(n: int) -> str:
    return (timezone.now() - timedelta(days=n)).date().isoformat()


def test_the_card_marks_only_figures_read_from_the_histograms(settings, staff_client: Client) -> None:
    _log({_days_ago(5): [10, 20, 30], _days_ago(4): [5, 7]})
    usage.prune_and_roll_up()
    assert _card(staff_client, {"range": "7d"}) == "10.0 / 28.0"
    settings.USAGE_RETENTION_DAYS = 2
    usage.prune_and_roll_up()  # the raw rows are gone, the rollups stay
    assert re.fullmatch(r"≈ [\d.]+ / ≈ [\d.]+", _card(staff_client, {"range": "7d"}))
    single_day = {"range": "custom", "start": _days_ago(5), "end": _days_ago(5)}
    assert _card(staff_client, single_day) == "20.0 / 29.0"


def test_a_histogram_figure_above_its_top_bucket_says_at_least(settings, staff_client: Client) -> None:
    _log({_days_ago(5): [6000, 7000, 8000], _days_ago(4): [9000, 6500]})
    settings.USAGE_RETENTION_DAYS = 2
    usage.prune_and_roll_up()
    assert _card(staff_client, {"range": "7d"}) == "≥ 5,000 / ≥ 5,000"
