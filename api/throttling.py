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
from rest_framework import exceptions
from rest_framework.throttling import BaseThrottle

from shared.redis_client import get_redis

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


@dataclass(frozen=True)
class RateAnswer:
    allowed: bool
    wait_seconds: float | None = None  # when refused: until one more request fits


@dataclass(frozen=True)
class RateCheck:
    """One request's question to Redis: may this key make one more request in the sliding minute?

    Queued on a pipeline, so authentication can ask it in the same round trip as its own
    question (api/auth.py)."""

    key_id: str
    rate: int
    window: int
    elapsed: float

    @classmethod
    def now(cls, api_key: ApiKey) -> RateCheck:
        window, elapsed = divmod(time.time(), WINDOW_SECONDS)
        # Counted by (part of) the key's hash, not its row id: ids come back after a database is rebuilt.
        return cls(api_key.key_hash[:24], rate_for(api_key), int(window), elapsed)

    def queue(self, pipe: redis.client.Pipeline) -> None:
        """Adds one command to `pipe`; pass its reply to `answer`."""
        keys = [f"{KEY_PREFIX}:{self.key_id}:{self.window}", f"{KEY_PREFIX}:{self.key_id}:{self.window - 1}"]
        weight = 1 - self.elapsed / WINDOW_SECONDS
        # EVAL, not EVALSHA: a pipeline would first ask whether the script is loaded, a second round trip.
        pipe.eval(SLIDING_WINDOW_SCRIPT, len(keys), *keys, repr(weight), self.rate, WINDOW_SECONDS * 2)

    def answer(self, reply: list) -> RateAnswer:
        allowed, current, previous = (int(x) for x in reply)
        if allowed:
            return RateAnswer(True)
        return RateAnswer(False, max(1.0, math.ceil(seconds_to_wait(self.rate, current, previous, self.elapsed))))


FAILURE_PREFIX = "toolrouter:authfail"


class TooManyFailedAuthentications(exceptions.Throttled):
    default_detail = "Too many failed authentications from this address."
    default_code = "too_many_failed_authentications"


@dataclass(frozen=True)
class FailedAuthWindow:
    """Failed authentications (unknown or revoked keys) of one client address over the sliding
    minute. Read in authentication's one round trip to Redis, before any database read; past
    AUTH_FAILURES_PER_MINUTE, a key this process does not already know is refused unread."""

    address: str
    window: int
    elapsed: float

    @classmethod
    def now(cls, address: str) -> FailedAuthWindow:
        window, elapsed = divmod(time.time(), WINDOW_SECONDS)
        return cls(address, int(window), elapsed)

    def _keys(self) -> list[str]:
        return [f"{FAILURE_PREFIX}:{self.address}:{self.window}", f"{FAILURE_PREFIX}:{self.address}:{self.window - 1}"]

    def queue_read(self, pipe: redis.client.Pipeline) -> None:
        pipe.mget(self._keys())

    def wait_seconds(self, reply: list) -> float | None:
        """None while the address may try again, else how long until it may."""
        current, previous = (int(x or 0) for x in reply)
        rate = settings.AUTH_FAILURES_PER_MINUTE
        if previous * (1 - self.elapsed / WINDOW_SECONDS) + current < rate:
            return None
        return max(1.0, math.ceil(seconds_to_wait(rate, max(current, 1), previous, self.elapsed)))

    def refuse(self, wait: float) -> TooManyFailedAuthentications:
        return TooManyFailedAuthentications(
            wait=wait, detail=f"More than {settings.AUTH_FAILURES_PER_MINUTE} failed authentications from this "
                              f"address in a minute (AUTH_FAILURES_PER_MINUTE); retry in {int(wait)} s.")

    def count(self) -> None:
        """One more failure; without Redis nothing is counted (and nothing is limited)."""
        if redis_resting():
            return
        key = self._keys()[0]
        try:
            pipe = get_redis().pipeline(transaction=False)
            pipe.incr(key)
            pipe.expire(key, WINDOW_SECONDS * 2)
            pipe.execute()
        except redis.RedisError as exc:
            note_redis_failure(exc)


def client_address(request) -> str:
    """The address failed authentications are counted by: the connection's peer (a reverse proxy
    in front must be the one setting REMOTE_ADDR)."""
    return str(request.META.get("REMOTE_ADDR") or "unknown")[:64]


def redis_resting() -> bool:
    """True for a while after a Redis failure: requests then skip Redis instead of waiting on it."""
    return time.monotonic() < _state.down_until


def note_redis_failure(exc: redis.RedisError) -> None:
    _state.down_until = time.monotonic() + settings.API_THROTTLE_REDIS_RETRY_SECONDS
    logger.warning("throttling: Redis unavailable (%s)", exc)


class ApiKeyRateThrottle(BaseThrottle):
    """DRF throttle for requests made with an API key; other requests are not counted here."""

    def __init__(self) -> None:
        self._wait: float | None = None

    def allow_request(self, request, view) -> bool:
        api_key = getattr(request, "auth", None)
        if not isinstance(api_key, ApiKey):
            return True  # unauthenticated requests are refused before this runs
        # Usually asked already, in authentication's round trip to Redis.
        answer = getattr(request.user, "rate_answer", None) or self._ask(api_key)
        if answer is None:
            return self._without_redis(api_key)
        if answer.allowed:
            return True
        self._wait = answer.wait_seconds
        return False

    def wait(self) -> float | None:
        return self._wait

    @staticmethod
    def _ask(api_key: ApiKey) -> RateAnswer | None:
        if redis_resting():
            return None
        check = RateCheck.now(api_key)
        pipe = get_redis().pipeline(transaction=False)
        check.queue(pipe)
        try:
            (reply,) = pipe.execute()
        except redis.RedisError as exc:
            note_redis_failure(exc)
            return None
        return check.answer(reply)

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
