"""The learning-loop card reads finished days from the daily rollups, as the other cards do: a range
reaching past USAGE_RETENTION_DAYS shows the same evidence, recall and ranks after the nightly job
pruned the raw feedback of its old days as before, for all clients and for one."""
from __future__ import annotations

from datetime import date, timedelta

import pytest

from toolcatalog.models import Tool
from usage import services as usage
from usage.learning_selectors import LearningLoop, learning_loop
from usage.models import Feedback, RequestLog
from usage.selectors import resolve_range

from .learning_support import offered, request_with_feedback
from .records import at, make_record

pytestmark = pytest.mark.django_db

NOW = at("2026-03-10 12:00")
FIRST_DAY = date(2026, 3, 1)  # ten days up to NOW's
CLIENTS = (None, "alpha", "beta")


@pytest.fixture
def ten_days_of_feedback() -> None:
    """Each day: alpha used its second offered tool, the proxy saw alpha use its first one; on even days
    beta needed a tool it was not offered. On the first day alpha also reported a turn that needed nothing."""
    for name in ("play_music", "get_weather", "set_timer"):
        Tool.objects.create(name=name, description=name.replace("_", " "))
    for i in range(10):
        morning = at(f"2026-03-{i + 1:02d} 09:00")
        request_with_feedback("rain today?", ["play_music", "get_weather"], ["get_weather"], client="alpha",
                              created_at=morning)
        usage.record_request(make_record(client="alpha", created_at=morning, results=offered("play_music"),
                                         used_tools=["play_music"]))
        usage.drain_request_buffer()
        if i % 2 == 0:
            request_with_feedback("egg timer", ["play_music"], [], missing=["set_timer"], client="beta",
                                  created_at=morning)
        if i == 0:
            request_with_feedback("hello", ["play_music"], [], client="alpha", created_at=morning)
    # Feedback arrives a minute after its request (record_feedback stamps the real clock).
    for feedback_id, request_time in RequestLog.objects.values_list("request_id", "created_at"):
        Feedback.objects.filter(request_id=feedback_id).update(created_at=request_time + timedelta(minutes=1))


def card(client: str | None) -> LearningLoop:
    return learning_loop(resolve_range("custom", NOW, first=FIRST_DAY, last=NOW.date(), client=client), NOW)


def roll_up_and_prune(settings) -> None:
    settings.USAGE_RETENTION_DAYS = 2
    result = usage.prune_and_roll_up(NOW)
    assert result["pruned_feedback"] > 0 and not Feedback.objects.filter(created_at__lt=at("2026-03-08 00:00"))


@pytest.mark.usefixtures("ten_days_of_feedback")
def test_the_figures_outlive_the_raw_feedback(settings) -> None:
    roll_up_and_prune(settings)
    every, alpha, beta = (card(client) for client in CLIENTS)
    assert (every.evidence, every.evidence_proxy, every.needed) == (26, 10, 25)
    assert every.recall == pytest.approx(20 / 25) and every.mean_rank == pytest.approx(30 / 20)
    assert (alpha.evidence, alpha.evidence_proxy, alpha.needed, alpha.recall) == (21, 10, 20, 1.0)
    assert alpha.mean_rank == pytest.approx(1.5)
    assert (beta.evidence, beta.needed, beta.recall, beta.mean_rank) == (5, 5, 0.0, None)
    assert len(every.series) == 10 and [p.requests for p in beta.series] == [1] * 5


@pytest.mark.usefixtures("ten_days_of_feedback")
def test_the_card_is_the_same_before_and_after_pruning(settings) -> None:
    before = {client: card(client) for client in CLIENTS}
    roll_up_and_prune(settings)
    assert {client: card(client) for client in CLIENTS} == before
