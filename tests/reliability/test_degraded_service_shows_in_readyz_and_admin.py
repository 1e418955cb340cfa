"""What degrades the service without stopping it shows in /readyz (still 200: the service routes)
and on the admin's index page: no Celery worker, and the embedding provider's circuit open."""
from __future__ import annotations

import json
import os
import signal
from pathlib import Path

import pytest

from routing.query_embeddings import _embedders
from shared.redis_client import get_redis
from tests.support.catalog import api_client, load_demo_catalog
from tests.support.openai_server import use_as_provider
from tests.support.worker import celery_worker, wait_for
from toolrouter.worker_heartbeat import HEARTBEAT_KEY

from .restartable_openai import RestartableOpenAI

pytestmark = pytest.mark.django_db(transaction=True)


def readyz(client) -> dict:
    response = client.get("/readyz")
    assert response.status_code == 200, response.content
    return json.loads(response.content)


def kill_tree(pid: int) -> None:
    children = Path(f"/proc/{pid}/task/{pid}/children")
    for child in [pid, *(int(c) for c in children.read_text().split())] if children.exists() else [pid]:
        os.kill(child, signal.SIGKILL)


def test_a_dead_worker_shows_in_readyz_and_on_the_admin_index(settings, client, admin_client_logged_in) -> None:
    settings.WORKER_HEARTBEAT_STALE_SECONDS = 2
    get_redis().delete(HEARTBEAT_KEY)  # as on a fresh Redis, which no worker has reported to
    assert readyz(client)["worker"]["ok"] is False
    with celery_worker({"WORKER_HEARTBEAT_SECONDS": "0.5", "WORKER_HEARTBEAT_STALE_SECONDS": "2"}) as worker:
        assert wait_for(lambda: readyz(client)["worker"]["ok"] is True, timeout=20)
        assert not any(r.startswith("worker:") for r in readyz(client)["degraded"])
        kill_tree(worker.pid)
        worker.wait(timeout=10)
        assert wait_for(lambda: readyz(client)["worker"]["ok"] is False, timeout=20)
    body = readyz(client)
    assert body["ready"] is True  # the service still routes
    assert any(r.startswith("worker: the Celery worker was last seen") for r in body["degraded"]), body["degraded"]
    page = admin_client_logged_in.get("/admin/").content.decode()
    assert "Service health" in page and "the Celery worker was last seen" in page


def test_an_open_embedding_circuit_shows_in_readyz_and_on_the_admin_index(settings, client,
                                                                         admin_client_logged_in) -> None:
    provider = RestartableOpenAI().start()
    use_as_provider(settings, provider)
    settings.ROUTE_EMBEDDING_TIMEOUT_SECONDS = 0.5
    _embedders.clear()
    try:
        load_demo_catalog()  # embedded by this provider, which then goes away
        provider.stop()
        agent = api_client(["route"], name="circuit-agent")
        for i in range(settings.ROUTE_EMBEDDING_FAILURES_TO_OPEN):
            answer = agent.post("/api/v1/route", {"query": f"play jazz {i}", "strategy": "hybrid"}, format="json")
            assert answer.status_code == 200 and answer.json()["strategy"]["fallback"] is True
        body = readyz(client)
        assert body["query_embeddings"]["circuit_open"] == ["openai:fake-embed"]
        assert any(r.startswith("embedding provider:") for r in body["degraded"])
        assert "routes use BM25 until it answers again" in admin_client_logged_in.get("/admin/").content.decode()
    finally:
        provider.stop()
        _embedders.clear()
