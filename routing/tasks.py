"""Thin Celery tasks for the routing service; the work is in routing.calibration."""
from __future__ import annotations

from celery import shared_task

from . import calibration


@shared_task(ignore_result=True)
def calibrate_ranking_if_due() -> int | None:
    """Beat runs this every CALIBRATION_CHECK_SECONDS; it calibrates only when the catalog moved."""
    row = calibration.calibrate_if_due()
    return row.pk if row else None
