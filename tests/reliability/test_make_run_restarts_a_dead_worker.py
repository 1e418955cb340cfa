"""`make run` restarts a Celery worker that died (kill -9), with what it left behind (the embedded beat)
ended first; it gives up, and stops everything, only when the worker keeps dying (README: 5 times
within a minute)."""
from __future__ import annotations

import os
import signal
import time

import pytest

from tests.support.catalog import load_demo_catalog
from tests.support.worker import wait_for

from .makerun import group_members, make_run
from .webprocess import call

pytestmark = pytest.mark.django_db(transaction=True)
RESTART_LIMIT = 5


def test_a_killed_worker_is_restarted_and_leaves_no_orphan(private_redis) -> None:
    load_demo_catalog(embed=False)  # nothing for the worker to embed
    with make_run(private_redis.url, "worker-restart") as run:
        worker = run.child("celery")
        assert worker is not None
        assert wait_for(lambda: len(group_members(worker)) >= 3, timeout=60)  # with its pool and beat
        os.kill(worker, signal.SIGKILL)

        assert wait_for(lambda: run.child("celery") not in (None, worker), timeout=30), run.log()
        assert not group_members(worker)  # the old beat does not log SchedulingErrors forever
        assert run.process.poll() is None and call(run.url("/healthz")).status == 200
        assert "celery worker exited with -9; restarting it" in run.log()

        assert run.stop() == 0
        assert not run.leftovers()


def test_a_worker_that_keeps_dying_stops_everything(private_redis) -> None:
    load_demo_catalog(embed=False)
    killed: set[int] = set()
    with make_run(private_redis.url, "worker-keeps-dying") as run:
        deadline = time.monotonic() + 90
        while run.process.poll() is None and time.monotonic() < deadline:
            worker = run.child("celery")
            if worker is not None and worker not in killed:
                os.kill(worker, signal.SIGKILL)
                killed.add(worker)
            time.sleep(0.05)

        assert run.process.poll() not in (None, 0), run.log()
        assert len(killed) == RESTART_LIMIT
        assert f"{RESTART_LIMIT} times within 60s; stopping." in run.log()
        assert not run.leftovers()  # the web server and the last worker's group went with it
