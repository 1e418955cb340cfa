"""Per-key rate limiting in Redis, over a sliding window of one minute.

The window is the usual two-counter approximation: the count of the current minute plus
the previous minute's count weighted by how much of it still lies inside the window.
One Lua script reads both counters and, only when the request is allowed, counts it,
so refused requests do not push the client's wait further out.

When Redis is unreachable the outcome is a setting: API_THROTTLE_FAIL_OPEN (the default)
lets requests through and counts them, otherwise they get 503. After a failure Redis is
not tried again for API_THROTTLE_REDIS_RETRY_SECONDS, so a hung server does not cost
every request a socket timeout.
"""
from __future__ import annotations

import logging
import math
import threading
import time
from dataclasses import dataclass

import redis
from django.conf import settings
from rest_framework.throttling import BaseThrottle

from toolrouter.redis_client import get_redis

from .errors import ApiError
from .models import ApiKey

logger = logging.getLogger(__name__)

WINDOW_SECONDS = 60
KEY_PREFIX = "toolrouter:throttle"

# KEYS: current window, previous window. ARGV: weight of the previous window, rate, ttl.
# Returns {allowed (0/1), current count, previous count}.
SLIDING_WINDOW_SCRIPT = """
local current = tonumber(redis.call('GET', KEYS[1]) or '0')
local previous = tonumber(redis.call('GET', KEYS[2]) or '0')
if previous * tonumber(ARGV[1]) + current + 1 > tonumber(ARGV[2]) then
    return {0, current, previous}
end
redis.call('INCR', KEYS[1])
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[3]))
return {1, current + 1, previous}
"""


@dataclass
class _RedisState:
    """What this process knows about Redis for throttling; `unthrottled` counts requests let through blind."""

    lock: threading.Lock
    down_until: float = 0.0
    unthrottled: int = 0
    refused_unavailable: int = 0


_state = _RedisState(lock=threading.Lock())


def throttle_health() -> dict[str, int | bool]:
    """For operators: how many requests passed (or were refused) without a rate check in this process."""
    return {"fail_open": settings.API_THROTTLE_FAIL_OPEN, "unthrottled_requests": _state.unthrottled,
            "refused_without_redis": _state.refused_unavailable}


def rate_for(api_key: ApiKey) -> int:
    return api_key.rate_per_minute if api_key.rate_per_minute is not None else settings.API_RATE_PER_MINUTE


def seconds_to_wait(rate: int, current: int, previous: int, elapsed: float) -> float:
    """How long until one more request fits under `rate`, given the two windows' counts."""
    if rate < 1:
        return WINDOW_SECONDS - elapsed
    if current + 1 > rate:
        # Only the next window helps; there, `current` becomes the weighted previous count.
        fraction_needed = 1 - (rate - 1) / current
        return (WINDOW_SECONDS - elapsed) + WINDOW_SECONDS * fraction_needed
    fraction_needed = 1 - (rate - current - 1) / previous
    return WINDOW_SECONDS * fraction_needed - elapsed


class ApiKeyRateThrottle(BaseThrottle):
    """DRF throttle for requests made with an API key; other requests are not counted here."""

    def __init__(self) -> None:
        self._wait: float | None = None

    def allow_request(self, request, view) -> bool:
        api_key = getattr(request, "auth", None)
        if not isinstance(api_key, ApiKey):
            return True  # unauthenticated requests are refused before this runs
        rate = rate_for(api_key)
        now = time.time()
        window, elapsed = divmod(now, WINDOW_SECONDS)
        if time.monotonic() < _state.down_until:
            return self._without_redis(api_key)
        try:
            allowed, current, previous = self._check(api_key.key_hash[:24], int(window), elapsed, rate)
        except redis.RedisError as exc:
            _state.down_until = time.monotonic() + settings.API_THROTTLE_REDIS_RETRY_SECONDS
            logger.warning("throttling: Redis unavailable (%s)", exc)
            return self._without_redis(api_key)
        if allowed:
            return True
        self._wait = max(1.0, math.ceil(seconds_to_wait(rate, current, previous, elapsed)))
        return False

    def wait(self) -> float | None:
        return self._wait

    @staticmethod
    def _check(key_id: str, window: int, elapsed: float, rate: int) -> tuple[bool, int, int]:
        # Counted by (part of) the key's hash, not its row id: ids come back after a database is rebuilt.
        client = get_redis()
        script = client.register_script(SLIDING_WINDOW_SCRIPT)  # EVALSHA, reloaded after a Redis restart
        keys = [f"{KEY_PREFIX}:{key_id}:{window}", f"{KEY_PREFIX}:{key_id}:{window - 1}"]
        weight = 1 - elapsed / WINDOW_SECONDS
        allowed, current, previous = script(keys=keys, args=[repr(weight), rate, WINDOW_SECONDS * 2])
        return bool(allowed), int(current), int(previous)

    @staticmethod
    def _without_redis(api_key: ApiKey) -> bool:
        if settings.API_THROTTLE_FAIL_OPEN:
            with _state.lock:
                _state.unthrottled += 1
            return True
        with _state.lock:
            _state.refused_unavailable += 1
        raise ApiError(503, "rate_limiter_unavailable",
                       "The rate limiter cannot be reached, and this service refuses unmetered requests; retry shortly.",
                       {"retry_after_seconds": math.ceil(settings.API_THROTTLE_REDIS_RETRY_SECONDS)})


def reset_redis_state() -> None:
    """Forget a past Redis failure (tests that restart Redis, and operators after a fix)."""
    _state.down_until = 0.0
