"""One Redis connection pool per process, with short timeouts so an outage fails fast."""
from __future__ import annotations

from functools import lru_cache

import redis
from django.conf import settings


@lru_cache(maxsize=1)
def get_redis() -> redis.Redis:
    return redis.Redis.from_url(
        settings.REDIS_URL,
        socket_timeout=settings.REDIS_SOCKET_TIMEOUT,
        socket_connect_timeout=settings.REDIS_SOCKET_TIMEOUT,
        health_check_interval=30,
    )


def redis_ping() -> str | None:
    """None when Redis answers, else why not."""
    try:
        get_redis().ping()
    except redis.RedisError as exc:
        return str(exc) or type(exc).__name__
    return None
