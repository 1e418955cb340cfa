"""A Celery worker SIGKILLed in the middle of an embedding batch: nothing is lost, nothing ends
failed. Batches still queued go to the next worker; the batch that died with the worker is
recovered (acks_late keeps its message unacknowledged; the requeue service re-sends its rows,
which `embed_objects` handles idempotently)."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from datetime import timedelta
from pathlib import Path

import pytest
from django.conf import settings as django_settings

from tests.support.openai_server import FakeOpenAI
from tests.support.worker import ARTIFACTS, PROJECT_DIR, _wait_until_ready, celery_worker, wait_for
from tests.support.worker import worker_database_url as database_url
from toolcatalog import services
from toolcatalog.models import EmbeddingStatus, Tool

from .faults import record_fault

pytestmark = pytest.mark.django_db(transaction=True)
TOOLS, BATCH, BATCH_SECONDS = 20, 5, 1.5


def provider_env(server: FakeOpenAI) -> dict[str, str]:
    return {"EMBEDDING_PROVIDER": "openai", "EMBEDDING_MODEL": "fake-embed", "EMBEDDING_BASE_URL": server.base_url,
            "EMBEDDING_API_KEY": "test-key", "EMBEDDING_BATCH_SIZE": str(BATCH), "EMBEDDING_TIMEOUT_SECONDS": "10"}


def start_worker_keeping_the_queue(env: dict[str, str]) -> subprocess.Popen:
    """A second worker, as an orchestrator restarts one: unlike tests.support.worker.celery_worker
    it does not purge the broker first, since what waits there is what this test is about."""
    log = open(ARTIFACTS / "celery-worker-after-kill.log", "ab")
    process = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "toolrouter", "worker", "--loglevel", "INFO", "--concurrency", "1",
         "--without-heartbeat", "--without-gossip", "--without-mingle"],
        cwd=PROJECT_DIR, stdout=log, stderr=subprocess.STDOUT,
        env={**os.environ, "DATABASE_URL": database_url(), "REDIS_URL": django_settings.REDIS_URL, **env},
    )
    _wait_until_ready(process)
    return process


def kill_tree(process: subprocess.Popen) -> None:
    """SIGKILL the worker and its pool child at once: no chance to acknowledge or clean up."""
    children = Path(f"/proc/{process.pid}/task/{process.pid}/children")
    pids = [int(pid) for pid in children.read_text().split()] if children.exists() else []
    for pid in [process.pid, *pids]:
        os.kill(pid, signal.SIGKILL)
    process.wait(timeout=10)


def statuses() -> dict[str, int]:
    rows = list(Tool.objects.values_list("embedding_status", flat=True))
    return {status: rows.count(status) for status in set(rows)}


def test_a_worker_killed_mid_batch_loses_nothing(settings, fake_openai) -> None:
    settings.EMBEDDING_PROVIDER, settings.EMBEDDING_MODEL = "openai", "fake-embed"
    settings.EMBEDDING_BASE_URL, settings.EMBEDDING_BATCH_SIZE = fake_openai.base_url, BATCH
    fake_openai.delay = BATCH_SECONDS
    with celery_worker(provider_env(fake_openai)) as first:
        services.import_catalog({"format": "toolcatalog/v1", "categories": [], "tools": [
            {"name": f"batch_tool_{i}", "description": f"Tool number {i} for the kill test"} for i in range(TOOLS)]})
        assert wait_for(lambda: len(fake_openai.requests) >= 2, timeout=30)  # batch 2 is in the provider's hands
        kill_tree(first)
        killed_at = time.monotonic()
    at_kill = statuses()
    assert at_kill.get(EmbeddingStatus.READY, 0) < TOOLS and not at_kill.get(EmbeddingStatus.FAILED)

    second = start_worker_keeping_the_queue(provider_env(fake_openai))
    try:
        # The batches still queued are taken by the new worker; the killed one stays pending.
        wait_for(lambda: statuses().get(EmbeddingStatus.PENDING, 0) <= BATCH, timeout=30)
        time.sleep(2 * BATCH_SECONDS)  # give a redelivery, if any, its chance before the requeue
        stuck = statuses().get(EmbeddingStatus.PENDING, 0)
        # The beat task's service; its 2-minute "stale" age is shortened so the test need not wait.
        services.requeue_stale_embeddings(pending_after=timedelta(0))
        assert wait_for(lambda: statuses() == {EmbeddingStatus.READY: TOOLS}, timeout=60), statuses()
        recovered = time.monotonic() - killed_at
    finally:
        second.terminate()
        second.wait(timeout=20)
    assert Tool.objects.filter(embedding_model="openai:fake-embed").count() == TOOLS
    how = ("the killed batch's rows were re-sent by requeue_stale_embeddings (its unacked message waits for the "
           f"broker's visibility_timeout, {django_settings.CELERY_BROKER_TRANSPORT_OPTIONS['visibility_timeout']} s)"
           if stuck else "the killed batch was redelivered by the broker before the requeue")
    record_fault("Celery worker SIGKILLed mid embedding batch",
                 f"nothing (saves had returned); at the kill {at_kill.get(EmbeddingStatus.READY, 0)}/{TOOLS} embedded, "
                 f"{stuck} left pending after the new worker drained the queue; {how}",
                 f"nothing: {TOOLS}/{TOOLS} ready, 0 failed",
                 f"{recovered:.1f} s from the kill to all ready (new worker start included)")
