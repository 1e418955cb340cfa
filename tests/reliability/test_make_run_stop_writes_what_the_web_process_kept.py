"""Stopping `make run` lets its web server exit normally: the usage records it kept in process
while Redis was down reach the database instead of dying with it."""
from __future__ import annotations

import signal

import pytest

from api.services import create_api_key
from tests.support.catalog import load_demo_catalog
from usage.models import RequestLog

from .makerun import make_run
from .webprocess import call

pytestmark = pytest.mark.django_db(transaction=True)
ROUTE = {"query": "play some jazz", "strategy": "hybrid"}


def test_a_stopped_make_run_writes_the_records_its_web_server_kept(private_redis) -> None:
    load_demo_catalog(embed=False)
    _, key = create_api_key("make-run-agent")
    with make_run(private_redis.url, "stop-writes") as run:
        private_redis.stop()
        answers = [call(run.url("/api/v1/route"), key, ROUTE) for _ in range(4)]
        assert all(a.status == 200 for a in answers), answers
        assert call(run.url("/readyz")).json()["usage_log"]["buffered_in_process"] > 0
        private_redis.start()  # no request after: the records are still in the web process
        assert run.stop(signal.SIGTERM) == 0

    request_ids = {a.json()["request_id"] for a in answers}
    logged = set(RequestLog.objects.filter(request_id__in=request_ids).values_list("request_id", flat=True))
    assert logged == request_ids
