"""Redis really stopped and started again under this process: routes answer without cache and
sessions, throttling follows its setting, the usage log keeps every record, /readyz says 503
and why, and everything comes back once Redis does, with no restart."""
from __future__ import annotations

import time

import pytest
from rest_framework.test import APIClient

from api.models import ApiKey
from tests.support.catalog import api_client, load_demo_catalog
from tests.support.worker import wait_for
from usage import services as usage
from usage.models import RequestLog

from .faults import record_fault

pytestmark = pytest.mark.django_db


@pytest.fixture
def agent(settings, monkeypatch) -> APIClient:
    settings.USAGE_REDIS_RETRY_SECONDS = 1.0  # the defaults (5 s) only make the test slower
    settings.API_THROTTLE_REDIS_RETRY_SECONDS = 1.0
    monkeypatch.setattr(usage, "_local", usage._LocalBuffer())  # this test's records only
    load_demo_catalog(embed=False)
    return api_client(["route"], name="redis-fault-agent")


def route(client: APIClient, query: str = "play some jazz") -> tuple[int, dict]:
    response = client.post("/api/v1/route", {"query": query, "strategy": "hybrid", "session_id": "s-1"}, format="json")
    return response.status_code, response.json()


def test_redis_stopped_then_started_again(agent, client, private_redis, settings) -> None:
    request_ids = []
    status, body = route(agent)
    assert status == 200 and body["session"]["stored"] is True
    request_ids.append(body["request_id"])
    assert client.get("/readyz").status_code == 200

    private_redis.stop()
    during = [route(agent, f"play some jazz {i}") for i in range(5)]
    assert all(status == 200 for status, _ in during)
    assert all(body["session"]["stored"] is False and body["matches"] for _, body in during)
    assert max(body["latency_ms"] for _, body in during) < 2000
    request_ids += [body["request_id"] for _, body in during]
    ready = client.get("/readyz")
    assert ready.status_code == 503
    assert ready.json()["checks"]["redis"]["ok"] is False and ready.json()["checks"]["redis"]["error"]
    assert ready.json()["usage_log"]["redis_ok"] is False
    kept = usage.usage_health()
    assert kept["buffered_in_process"] + RequestLog.objects.filter(request_id__in=request_ids).count() >= 5
    assert kept["dropped_in_process"] == 0

    settings.API_THROTTLE_FAIL_OPEN = False
    closed = agent.post("/api/v1/route", {"query": "jazz"}, format="json")
    assert closed.status_code == 503 and closed.json()["error"] == "rate_limiter_unavailable"
    settings.API_THROTTLE_FAIL_OPEN = True

    private_redis.start()  # same port, same data directory
    started = time.monotonic()
    assert wait_for(lambda: client.get("/readyz").status_code == 200, timeout=15)
    assert wait_for(lambda: route(agent)[1]["session"]["stored"] is True, timeout=15)
    recovered = time.monotonic() - started
    request_ids += [route(agent)[1]["request_id"]]

    ApiKey.objects.filter(name="redis-fault-agent").update(rate_per_minute=1)
    assert wait_for(lambda: agent.post("/api/v1/route", {"query": "jazz"}, format="json").status_code == 429,
                    timeout=5)  # counted in Redis again

    usage.drain_request_buffer()
    logged = set(RequestLog.objects.filter(request_id__in=request_ids).values_list("request_id", flat=True))
    assert logged == set(request_ids)
    record_fault("Redis stopped and restarted (in-process, Django test client)",
                 "routes 200 (no cache, session.stored false); /readyz 503 with the Redis error; "
                 "throttling fail-open 200 / fail-closed 503 rate_limiter_unavailable",
                 f"nothing: {len(request_ids)}/{len(request_ids)} requests in the usage log",
                 f"{recovered * 1000:.0f} ms after Redis was back (readyz 200, sessions stored)")
