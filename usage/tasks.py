"""Thin Celery tasks for the usage log; the work is in usage.services.

Beat runs the drain every few seconds: it logs (at DEBUG) only when it moved records, and its
problems (Redis or the database away) as warnings from usage.services.
"""
from __future__ import annotations

import logging

from celery import shared_task
from celery.signals import worker_shutdown

from . import services

logger = logging.getLogger(__name__)


@shared_task(ignore_result=True)
def drain_request_log() -> int:
    """Beat runs this every USAGE_DRAIN_SECONDS."""
    written = services.drain_request_buffer()
    if written:
        logger.debug("usage log: %d requests written", written)
    return written


@shared_task(acks_late=True)
def prune_and_roll_up_usage() -> dict:
    result = services.prune_and_roll_up()
    if result["rolled_up"] or result["pruned_requests"] or result["pruned_feedback"]:
        logger.info("usage log: rolled up %s; pruned %d requests and %d feedback rows",
                    ", ".join(result["rolled_up"]) or "no day", result["pruned_requests"], result["pruned_feedback"])
    return result


@worker_shutdown.connect
def drain_on_shutdown(**kwargs) -> None:
    """A clean worker stop empties the buffer, so nothing waits in Redis for a worker that may not return."""
    services.drain_everything()
