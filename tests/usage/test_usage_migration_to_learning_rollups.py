"""Days rolled up before the rollups kept the learning-loop card's figures are rolled up again where
their raw rows remain whole, so the card's ranks and counts are right on them; no rollup is deleted,
and a day retention has thinned (a record drained late can be older than the cutoff) keeps its own."""
from __future__ import annotations

from datetime import date

import pytest
from django.db import connection

from toolcatalog.models import Tool
from usage import services as usage
from usage.learning_selectors import LearningLoop, learning_loop
from usage.models import DailyUsage, DayToRollUp, Feedback
from usage.selectors import resolve_range

from .learning_support import request_with_feedback
from .records import at
from .test_usage_migration_to_client_rollups import latest, migrate, old_rollup_row

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = [("usage", "0006_daytorollup")]
NOW = at("2026-03-10 12:00")


def card() -> LearningLoop:
    return learning_loop(resolve_range("custom", NOW, first=date(2026, 3, 1), last=NOW.date()), NOW)


def test_days_with_raw_rows_are_rolled_up_again() -> None:
    migrate(BEFORE)
    try:
        Tool.objects.create(name="get_weather", description="weather")
        request_with_feedback("rain today?", ["play_music", "get_weather"], ["get_weather"],
                              created_at=at("2026-03-08 09:00"))
        Feedback.objects.update(created_at=at("2026-03-08 09:01"))
        with connection.cursor() as cursor:  # as the rollup job of 0006 wrote them
            cursor.execute(old_rollup_row("2026-01-01", 4))  # raw rows long pruned
            cursor.execute(old_rollup_row("2026-03-08", 1))
    finally:
        migrate(latest())
    assert sorted(DailyUsage.objects.values_list("day", flat=True)) == [date(2026, 1, 1), date(2026, 3, 8)]
    assert list(DayToRollUp.objects.values_list("day", flat=True)) == [date(2026, 3, 8)]

    usage.prune_and_roll_up(NOW)
    rolled = DailyUsage.objects.get(client=None, day=date(2026, 3, 8))
    assert (rolled.feedback_needing_tools, rolled.used_rank_sum, rolled.used_ranked) == (1, 2, 1)
    assert (card().needed, card().mean_rank) == (1, 2.0)
    assert DailyUsage.objects.get(client=None, day=date(2026, 1, 1)).requests == 4


def test_a_day_retention_has_thinned_keeps_its_rollup(settings) -> None:
    settings.USAGE_RETENTION_DAYS = 5  # the next run's cutoff: 2026-03-05
    migrate(BEFORE)
    try:
        request_with_feedback("rain today?", ["get_weather"], ["get_weather"], created_at=at("2026-02-01 09:00"))
        with connection.cursor() as cursor:
            cursor.execute(old_rollup_row("2026-02-01", 4))  # its other 3 requests were pruned
    finally:
        migrate(latest())
    usage.prune_and_roll_up(NOW)
    assert DailyUsage.objects.get(client=None, day=date(2026, 2, 1)).requests == 4
    assert not DayToRollUp.objects.exists()
