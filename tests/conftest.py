from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from tests.support.bench_runs import BenchRuns, scripts_for
from tests.support.openai_server import FakeOpenAI
from tests.support.worker import celery_worker


@pytest.fixture(scope="module")
def local_worker(django_db_setup, django_db_blocker) -> Iterator[None]:
    """A real Celery worker with the default (local model) embedding provider."""
    with django_db_blocker.unblock():
        with celery_worker():
            yield


@pytest.fixture
def fake_openai() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as server:
        yield server


@pytest.fixture
def admin_client_logged_in(client, django_user_model):
    user = django_user_model.objects.create_superuser(username="curator", password="pw-for-tests-only")
    client.force_login(user)
    return client


@pytest.fixture
def demo_catalog(db) -> None:
    """The demo catalog with every embedding ready (computed in-process by the real model)."""
    from tests.support.catalog import load_demo_catalog

    load_demo_catalog()


@pytest.fixture
def route_client(db):
    from tests.support.catalog import api_client

    return api_client(["route"])


@pytest.fixture(scope="session", autouse=True)
def bench_runs(request, tmp_path_factory) -> Iterator[BenchRuns | None]:
    """When tests/bench/ is selected, its benchmark runs start with the session (on the core the
    rest of the suite leaves idle) and its tests wait for them; see tests/support/bench_runs.py."""
    bench_dir = Path(__file__).parent / "bench"
    selected = [item.name for item in request.session.items if bench_dir in Path(item.path).parents]
    if not selected:
        yield None
        return
    request.getfixturevalue("django_db_setup")  # the test database first: both create databases
    runs = BenchRuns(tmp_path_factory.mktemp("bench-results"), scripts_for(selected)).start()
    yield runs
    runs.wait_all()


@pytest.fixture
def fresh_usage_buffers(monkeypatch) -> Iterator[None]:
    """Empty usage buffers and counters: the Redis keys and this process's fallback buffer (records
    other tests left would otherwise be drained into this test's log), before the test and after it,
    so that a test leaving a backlog (thousands of records) does not slow the next one's drains."""
    from shared.redis_client import get_redis
    from usage import services as usage

    def empty_redis_buffers() -> None:
        get_redis.cache_clear()
        get_redis().delete(usage.REQUESTS_KEY, usage.DROPPED_KEY, usage.DRAIN_LOCK_KEY)

    empty_redis_buffers()
    monkeypatch.setattr(usage, "_local", usage._LocalBuffer())
    yield
    try:
        empty_redis_buffers()
    except redis.RedisError:  # the test pointed the app at a Redis that is down: it holds nothing of this test
        get_redis.cache_clear()


@pytest.fixture(autouse=True)
def fresh_routing_index() -> Iterator[None]:
    """Each test's rolled-back catalog may reuse a version number: build the index anew."""
    from routing.live_index import live_index

    live_index.clear()
    yield
    live_index.clear()
