"""One Redis connection pool per process, with short timeouts so an outage fails fast.

Also the stamps that let web processes keep copies of what the database holds (API keys, the
routing index of a catalog version) without reading it on every request. A stamp is a random
value in Redis that every write to those rows replaces; a process uses its copy only while the
stamp is the one it saw before it read the copy from the database:

- a write expires the stamp before it runs and again once it has committed (`changing`), so
  a copy read while the write was in flight is dropped too, and no copy outlives the commit;
- a reader that finds no stamp creates one (`queue_stamp`), so copies come back after a write;
- stamps expire after STAMP_TTL_SECONDS: if a write could not reach Redis (or its process
  died between commit and the second expiry), copies are trusted at most that long;
- without Redis, readers read the database every time.

An API request reads the stamps once, at its start, in the same round trip as its rate check
(api/auth.py), and hands what it read to the readers later in the request as a parameter (the
catalog stamp goes to routing/live_index.py through the route service).
"""
from __future__ import annotations

import logging
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from functools import lru_cache

import redis
from django.conf import settings
from django.db import transaction

logger = logging.getLogger(__name__)

STAMP_PREFIX = "toolrouter:stamp:"
STAMP_TTL_SECONDS = 10  # the bound above; also how often each process re-reads the rows it uses
API_KEYS_STAMP = "api-keys"  # api/models.py writes, api/auth.py keeps copies
CATALOG_STAMP = "catalog"  # toolcatalog/services.py bumps the version, routing/live_index.py keeps the index


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


# KEYS: the stamp. ARGV: a new stamp, its ttl. Returns the stamp, created if there was none.
_STAMP_SCRIPT = """
local stamp = redis.call('GET', KEYS[1])
if not stamp then
    stamp = ARGV[1]
    redis.call('SET', KEYS[1], stamp, 'EX', tonumber(ARGV[2]))
end
return stamp
"""


def queue_stamp(pipe: redis.client.Pipeline, name: str) -> None:
    """Adds to `pipe` one command whose reply is the stamp `name` (bytes), created if missing."""
    # EVAL, not EVALSHA: a pipeline would first ask whether the script is loaded, a second round trip.
    pipe.eval(_STAMP_SCRIPT, 1, STAMP_PREFIX + name, secrets.token_hex(8), STAMP_TTL_SECONDS)


def expire_stamp(name: str) -> None:
    try:
        get_redis().delete(STAMP_PREFIX + name)
    except redis.RedisError as exc:
        logger.error("could not expire the %s stamp in Redis (%s): web processes may use their copies for up "
                     "to %d s", name, exc, STAMP_TTL_SECONDS)


@contextmanager
def changing(name: str) -> Iterator[None]:
    """Around a write to rows that processes keep copies of under the stamp `name`."""
    expire_stamp(name)
    yield
    # Registered after the write: outside a transaction it runs at once, after the write committed.
    transaction.on_commit(lambda: expire_stamp(name))
