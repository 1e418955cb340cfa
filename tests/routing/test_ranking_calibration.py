"""The live catalog's ranking calibration: measured on its own evidence, stored, and served."""
from __future__ import annotations

import pytest
from django.urls import reverse
from django.utils import timezone

from engine import RankingParams
from routing import calibration
from routing.live_index import live_index
from routing.models import RankingCalibration
from toolcatalog.embeddings import get_provider
from toolcatalog.models import Tool
from toolcatalog.services import save_and_schedule
from usage.models import Feedback, RequestLog

pytestmark = pytest.mark.django_db


def test_calibrating_stores_the_weights_and_what_they_were_measured_on(demo_catalog) -> None:
    row = calibration.calibrate_now()
    assert row.evidence["hypothetical"] >= 400 and row.evidence["used"] == row.evidence["hypothetical"]
    assert set(row.before) == {"recall@1", "recall@5", "recall@10", "mrr"}
    assert row.after["mrr"] >= row.before["mrr"]
    assert row.reason


def test_web_processes_rank_with_the_newest_calibration(demo_catalog) -> None:
    model_id = get_provider().model_id
    assert live_index.current(model_id).params == RankingParams()  # nothing calibrated yet: the defaults
    row = RankingCalibration.objects.create(
        catalog_version=1, model=model_id, calibrated=True, reason="test",
        params=RankingParams(lexical_weight=0.5, category_weight=0.4).to_dict())
    assert live_index.current(model_id).params == RankingParams.from_dict(row.params)


def test_traffic_confirmed_queries_are_evidence(demo_catalog) -> None:
    now = timezone.now()
    for i, (query, tool) in enumerate([("what will the weather be like in Lyon", "get_weather_forecast"),
                                       ("put on something relaxing", "play_music")]):
        RequestLog.objects.create(created_at=now, request_id=f"r{i}", endpoint="route", strategy_class="hybrid",
                                  latency_ms=3.0, query=query)
        Feedback.objects.create(request_id=f"r{i}", used_tools=[tool], created_at=now)
    RequestLog.objects.create(created_at=now, request_id="hashed", endpoint="route", strategy_class="hybrid",
                              latency_ms=3.0, query=None, query_hash="abc")  # stored as a hash: never learnt from
    Feedback.objects.create(request_id="hashed", used_tools=["play_music"], created_at=now)
    row = calibration.calibrate_now()
    assert row.evidence["confirmed"] == 2


def test_calibration_is_due_once_per_settled_and_embedded_catalog_version(demo_catalog, settings) -> None:
    settings.CALIBRATION_QUIET_SECONDS = 0
    assert calibration.calibrate_if_due() is not None  # never calibrated
    assert calibration.calibrate_if_due() is None  # same version
    tool = Tool.objects.get(name="play_music")
    tool.description = "Play a song, an album or a playlist on the user's speakers"
    save_and_schedule(tool)
    assert calibration.calibrate_if_due() is None  # its new embedding is pending
    Tool.objects.filter(pk=tool.pk).update(embedding_status="ready")
    settings.CALIBRATION_QUIET_SECONDS = 3600
    assert calibration.calibrate_if_due() is None  # the catalog changed a moment ago
    settings.CALIBRATION_QUIET_SECONDS = 0
    assert calibration.calibrate_if_due() is not None


def test_the_admin_lists_calibrations_and_recalibrates(demo_catalog, admin_client_logged_in) -> None:
    url = reverse("admin:routing_rankingcalibration_changelist")
    response = admin_client_logged_in.post(reverse("admin:routing_rankingcalibration_recalibrate"))
    assert response.status_code == 302 and response["Location"] == url
    assert RankingCalibration.objects.count() == 1
    page = admin_client_logged_in.get(url).content.decode()
    assert "Recalibrate now" in page and "Recall@5 before → after" in page
    assert admin_client_logged_in.get(reverse("admin:routing_rankingcalibration_recalibrate")).status_code == 405
