"""Thin Celery tasks for the routing service; the work is in routing.calibration, routing/learning.py
and routing/doctor.py."""
from __future__ import annotations

from celery import shared_task

from . import calibration, doctor, learning


@shared_task(ignore_result=True)
def calibrate_ranking_if_due() -> int | None:
    """Beat runs this every CALIBRATION_CHECK_SECONDS; it calibrates only when the catalog moved."""
    row = calibration.calibrate_if_due()
    return row.pk if row else None


@shared_task(ignore_result=True)
def refresh_suggestions() -> dict:
    """Beat runs this every LEARNING_REFRESH_SECONDS (and it accepts automatically when that mode is on)."""
    return learning.refresh_suggestions().as_dict()


@shared_task(ignore_result=True)
def check_catalog() -> int | None:
    """Beat runs this every DOCTOR_CHECK_SECONDS; a new report only when the catalog moved or the last is old."""
    report = doctor.check_catalog_if_due()
    return report.pk if report else None
