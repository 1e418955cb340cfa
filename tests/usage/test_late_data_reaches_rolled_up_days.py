"""A day already rolled up takes what arrives for it later: a record drained late, feedback on one of
its requests, a report replacing another; a backlog waiting in the buffer is drained before the roll-up."""
from __future__ import annotations

from datetime import date

import pytest

from usage import selectors
from usage import services as usage
from usage.models import DailyUsage, Feedback, RequestLog

from .records import at, make_record

pytestmark = pytest.mark.django_db

NOW = at("2026-03-10 12:00")
LATER = at("2026-03-11 12:00")


def _seven_days(now=LATER) -> selectors.DashboardData:
    return selectors.dashboard_data(selectors.resolve_range("7d", now))


def test_a_client_report_replacing_the_proxys_after_the_roll_up_counts_once() -> None:
    usage.record_request(make_record(request_id="p1", endpoint="proxy", created_at=at("2026-03-07 10:00"),
                                     used_tools=["play_music"]))
    usage.drain_request_buffer()
    usage.prune_and_roll_up(at("2026-03-09 01:00"))
    usage.prune_and_roll_up(NOW)
    usage.record_feedback(request_id="p1", used_tools=["play_music"], success=True, api_key_id=None)
    Feedback.objects.filter(request_id="p1").update(created_at=at("2026-03-10 11:00"))
    usage.prune_and_roll_up(at("2026-03-11 01:00"))
    data = _seven_days()
    assert (data.feedback.feedback, data.feedback.tools_used, data.feedback.feedback_success) == (1, 1, 1)
    assert [(t.tool, t.used, t.unused) for t in data.top_tools] == [("play_music", 1, 0), ("search_music", 0, 1)]


def test_feedback_for_a_request_of_a_day_rolled_up_long_ago_is_counted_on_that_day() -> None:
    usage.record_request(make_record(request_id="r1", created_at=at("2026-03-05 10:00")))
    usage.drain_request_buffer()
    usage.prune_and_roll_up(NOW)
    usage.record_feedback(request_id="r1", used_tools=["search_music"], success=False, api_key_id=None)
    usage.prune_and_roll_up(at("2026-03-11 01:00"))
    rolled = DailyUsage.objects.get(client=None, day=date(2026, 3, 5))
    assert (rolled.feedback, rolled.feedback_failure, rolled.tools_offered_and_used) == (1, 1, 1)
    assert DailyUsage.objects.get(client="tests", day=date(2026, 3, 5)).feedback == 1


def test_a_request_drained_late_for_an_older_rolled_up_day_is_counted() -> None:
    usage.record_request(make_record(request_id="x1", created_at=at("2026-03-05 10:00")))
    usage.drain_request_buffer()
    usage.prune_and_roll_up(NOW)  # rolls up 03-05 to 03-09
    usage.record_request(make_record(request_id="late", created_at=at("2026-03-06 10:00")))
    usage.drain_request_buffer()
    usage.prune_and_roll_up(at("2026-03-11 01:00"))
    assert RequestLog.objects.count() == 2
    assert _seven_days().totals.requests == 2
    assert DailyUsage.objects.get(client="tests", day=date(2026, 3, 6)).requests == 1


def test_a_day_retention_has_thinned_keeps_its_rollup_when_a_late_record_arrives(settings) -> None:
    settings.USAGE_RETENTION_DAYS = 2
    for request_id in ("a", "b"):
        usage.record_request(make_record(request_id=request_id, created_at=at("2026-03-05 10:00")))
    usage.drain_request_buffer()
    usage.prune_and_roll_up(NOW)  # rolls up 03-05, then prunes its raw rows
    usage.record_request(make_record(request_id="late", created_at=at("2026-03-05 11:00")))
    usage.drain_request_buffer()
    usage.prune_and_roll_up(at("2026-03-11 01:00"))
    assert DailyUsage.objects.get(client=None, day=date(2026, 3, 5)).requests == 2


def test_the_roll_up_drains_the_whole_backlog_first() -> None:
    backlog = 5_001  # more than one drain pass takes
    for i in range(backlog):
        usage.record_request(make_record(request_id=f"b{i}", created_at=at("2026-03-09 10:00")))
    usage.prune_and_roll_up(NOW)
    assert DailyUsage.objects.get(client=None, day=date(2026, 3, 9)).requests == backlog
    assert _seven_days(NOW).totals.requests == backlog
