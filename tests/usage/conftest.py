from __future__ import annotations

from collections.abc import Iterator

import pytest

from shared.redis_client import get_redis


@pytest.fixture(autouse=True)
def usage_buffers_start_empty(fresh_usage_buffers) -> None:
    """Every usage test (see tests/conftest.py)."""


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
