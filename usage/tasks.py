"""Thin Celery tasks for the usage log; the work is in usage.services."""
from __future__ import annotations

from celery import shared_task
from celery.signals import worker_shutdown

from . import services


@shared_task(ignore_result=True)
def drain_request_log() -> int:
    """Beat runs this every USAGE_DRAIN_SECONDS."""
    return services.drain_request_buffer()


@shared_task(acks_late=True)
def prune_and_roll_up_usage() -> dict:
    return services.prune_and_roll_up()


@worker_shutdown.connect
def drain_on_shutdown(**kwargs) -> None:
    """A clean worker stop empties the buffer, so nothing waits in Redis for a worker that may not return."""
    services.drain_everything()
