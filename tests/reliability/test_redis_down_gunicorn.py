"""The same Redis outage against a real gunicorn process: "without restarting the web process"
taken literally (the worker's process id does not change)."""
from __future__ import annotations

import time

import pytest

from api.services import create_api_key
from tests.support.catalog import load_demo_catalog
from tests.support.worker import wait_for
from tests.support.worker import worker_database_url as database_url
from usage import services as usage
from usage.models import RequestLog

from .faults import record_fault
from .webprocess import WebProcess, call

pytestmark = pytest.mark.django_db(transaction=True)
ROUTE = {"query": "play some jazz", "strategy": "hybrid", "session_id": "g-1"}


def test_gunicorn_serves_through_a_redis_restart(private_redis) -> None:
    load_demo_catalog(embed=False)
    _, key = create_api_key("gunicorn-redis-agent")
    web = WebProcess({"DATABASE_URL": database_url(), "REDIS_URL": private_redis.url}, "redis-fault")
    try:
        route = lambda: call(web.url("/api/v1/route"), key, ROUTE)  # noqa: E731 - read as a verb below
        first = route()
        assert first.status == 200 and first.json()["session"]["stored"] is True
        request_ids = [first.json()["request_id"]]

        private_redis.stop()
        during = [route() for _ in range(5)]
        assert all(a.status == 200 and a.json()["session"]["stored"] is False for a in during), during
        slowest = max(a.seconds for a in during)
        request_ids += [a.json()["request_id"] for a in during]
        ready = call(web.url("/readyz"))
        assert ready.status == 503 and ready.is_json and ready.json()["checks"]["redis"]["error"]

        private_redis.start()
        started = time.monotonic()
        assert wait_for(lambda: call(web.url("/readyz")).status == 200, timeout=20)
        assert wait_for(lambda: route().json()["session"]["stored"] is True, timeout=20)
        recovered = time.monotonic() - started
        assert web.current_worker_pids() == web.worker_pids and web.process.poll() is None
        after = route()
        request_ids.append(after.json()["request_id"])
    finally:
        web.stop()  # SIGTERM: records still buffered in the worker go to the database at exit

    usage.drain_request_buffer()
    logged = set(RequestLog.objects.filter(request_id__in=request_ids).values_list("request_id", flat=True))
    assert logged == set(request_ids), [request_ids.index(r) for r in set(request_ids) - logged]
    record_fault("Redis stopped and restarted (gunicorn process)",
                 f"routes 200 (slowest {slowest * 1000:.0f} ms, session.stored false); /readyz 503 JSON with the error",
                 f"nothing: {len(logged)}/{len(request_ids)} requests logged (outage records written at worker exit)",
                 f"{recovered * 1000:.0f} ms after Redis was back; same worker pid, no restart")
