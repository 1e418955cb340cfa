"""Feedback is counted on its request's day and for its request's client, whenever it arrives:
a day's figures agree with themselves, before and after the day is rolled up."""
from __future__ import annotations

from datetime import date

import pytest

from usage import selectors
from usage import services as usage
from usage.models import Feedback

from .records import at, make_record

pytestmark = pytest.mark.django_db

NOW = at("2026-03-10 12:00")


def _report_arriving_at(request_id: str, used: list[str], when: str) -> None:
    usage.record_feedback(request_id=request_id, used_tools=used, success=True, api_key_id=None)
    Feedback.objects.filter(request_id=request_id).update(created_at=at(when))


def _day(day: date) -> selectors.DashboardData:
    return selectors.dashboard_data(selectors.resolve_range("custom", NOW, first=day, last=day))


def _used(data: selectors.DashboardData) -> list[tuple[str, int]]:
    return [(t.tool, t.used) for t in data.top_tools if t.used]


def test_feedback_after_midnight_counts_on_the_day_of_its_request() -> None:
    usage.record_request(make_record(request_id="r1", created_at=at("2026-03-08 23:00")))
    usage.drain_request_buffer()
    _report_arriving_at("r1", ["play_music"], "2026-03-09 01:00")
    for rolled_up in (False, True):
        if rolled_up:
            usage.prune_and_roll_up(NOW)
        request_day, arrival_day = _day(date(2026, 3, 8)), _day(date(2026, 3, 9))
        assert (request_day.totals.requests, request_day.feedback.feedback) == (1, 1)
        assert _used(request_day) == [("play_music", 1)]
        assert (arrival_day.totals.requests, arrival_day.feedback.feedback, arrival_day.feedback.hit_rate) == (0, 0, None)
        assert _used(arrival_day) == []


def test_a_clients_feedback_stays_in_its_view_when_it_arrives_on_a_day_the_client_made_no_request() -> None:
    usage.record_request(make_record(request_id="a1", client="alpha", created_at=at("2026-03-08 10:00")))
    usage.record_request(make_record(request_id="b1", client="beta", created_at=at("2026-03-09 10:00")))
    usage.drain_request_buffer()
    _report_arriving_at("a1", ["play_music"], "2026-03-09 11:00")
    usage.prune_and_roll_up(NOW)
    alpha = selectors.dashboard_data(selectors.resolve_range("7d", NOW, client="alpha"))
    assert (alpha.feedback.feedback, alpha.feedback.hit_rate) == (1, 1.0)
    assert _used(alpha) == [("play_music", 1)]
    beta = selectors.dashboard_data(selectors.resolve_range("7d", NOW, client="beta"))
    assert beta.feedback.feedback == 0
    assert selectors.dashboard_data(selectors.resolve_range("7d", NOW)).feedback.feedback == 1
