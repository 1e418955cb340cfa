"""A real Celery worker in a subprocess, pointed at the test database and test Redis."""
from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from django.conf import settings
from django.db import connection

PROJECT_DIR = Path(__file__).resolve().parents[2]
ARTIFACTS = PROJECT_DIR / ".data" / "test-artifacts"


def worker_database_url() -> str:
    db = connection.settings_dict
    password = f":{db['PASSWORD']}" if db.get("PASSWORD") else ""
    return f"postgres://{db['USER']}{password}@{db['HOST']}:{db['PORT']}/{db['NAME']}"


def purge_queue() -> None:
    from shared.redis_client import get_redis

    get_redis().flushdb()


@contextmanager
def celery_worker(extra_env: dict[str, str] | None = None) -> Iterator[subprocess.Popen]:
    """Start a worker for the duration of the block; its log goes to .data/test-artifacts/."""
    purge_queue()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "DATABASE_URL": worker_database_url(), "REDIS_URL": settings.REDIS_URL, **(extra_env or {})}
    log = open(ARTIFACTS / "celery-worker.log", "ab")
    process = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "toolrouter", "worker", "--loglevel", "INFO",
         "--concurrency", "1", "--without-heartbeat", "--without-gossip", "--without-mingle"],
        cwd=PROJECT_DIR, env=env, stdout=log, stderr=subprocess.STDOUT,
    )
    try:
        _wait_until_ready(process)
        yield process
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
        log.close()


def _wait_until_ready(process: subprocess.Popen, timeout: float = 60.0) -> None:
    from toolrouter.celery import app

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"celery worker exited with {process.returncode}; see {ARTIFACTS / 'celery-worker.log'}")
        if app.control.ping(timeout=0.5):
            return
    raise RuntimeError("celery worker did not answer a ping within a minute")


def wait_for(condition: Callable[[], bool], timeout: float = 30.0, interval: float = 0.2) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(interval)
    return condition()


def wait_until_nothing_pending(timeout: float = 180.0) -> None:
    """Until the worker has embedded everything a test queued: a transactional test's teardown
    empties the tables, and doing so while the worker still writes them can deadlock."""
    from toolcatalog.selectors import embedding_counts

    assert wait_for(lambda: not any(c["pending"] for c in embedding_counts().values()), timeout=timeout), \
        f"embeddings still pending after {timeout:.0f}s: {embedding_counts()}"
