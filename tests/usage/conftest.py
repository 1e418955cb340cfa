from __future__ import annotations

from collections.abc import Iterator

import pytest

from shared.redis_client import get_redis
from usage import services as usage

USAGE_KEYS = (usage.REQUESTS_KEY, usage.DROPPED_KEY, usage.DRAIN_LOCK_KEY)


@pytest.fixture(autouse=True)
def fresh_usage_buffers(monkeypatch) -> Iterator[None]:
    """Each test starts with empty buffers and counters: the Redis keys and this process's fallback buffer."""
    get_redis.cache_clear()
    get_redis().delete(*USAGE_KEYS)
    monkeypatch.setattr(usage, "_local", usage._LocalBuffer())
    yield
    get_redis.cache_clear()


@pytest.fixture
def staff_client(client, django_user_model):
    user = django_user_model.objects.create_user(username="operator", password="pw-for-tests-only", is_staff=True)
    client.force_login(user)
    return client


@pytest.fixture
def redis_down(settings) -> Iterator[None]:
    """Point the app at a port where nothing listens; retry Redis on every call so the test is quick to recover."""
    settings.REDIS_URL = "redis://127.0.0.1:1/15"
    settings.USAGE_REDIS_RETRY_SECONDS = 0
    get_redis.cache_clear()
    yield
    get_redis.cache_clear()
