"""The Celery worker says it is alive, so that /readyz and the admin can say when it is not.

A thread in the worker's main process writes a Redis key every WORKER_HEARTBEAT_SECONDS, whatever
task the pool is busy with. A worker that is killed or wedged stops writing, and the key's age
grows; past WORKER_HEARTBEAT_STALE_SECONDS the worker counts as gone. Without a worker the
service still routes, but embeddings stay pending and the usage log waits in Redis.
"""
from __future__ import annotations

import json
import logging
import os
import socket
import threading
import time
from typing import Any

import redis
from django.conf import settings

from shared.redis_client import get_redis

logger = logging.getLogger(__name__)

HEARTBEAT_KEY = "toolrouter:worker:heartbeat"


def beat_once() -> None:
    seen = {"at": time.time(), "host": socket.gethostname(), "pid": os.getpid()}
    get_redis().set(HEARTBEAT_KEY, json.dumps(seen), ex=int(max(60, 10 * settings.WORKER_HEARTBEAT_STALE_SECONDS)))


def _beat_forever() -> None:
    while True:
        try:
            beat_once()
        except redis.RedisError as exc:  # Redis is down: the worker is then idle anyway; try again
            logger.warning("worker heartbeat not written: %s", exc)
        time.sleep(settings.WORKER_HEARTBEAT_SECONDS)


def start_heartbeat(**_: Any) -> None:
    """Celery's worker_ready signal: start beating in the worker's main process."""
    threading.Thread(target=_beat_forever, name="worker-heartbeat", daemon=True).start()


def worker_health() -> dict[str, Any]:
    """{"ok": True, "last_seen_seconds": ...}; ok False with an error when no worker has written
    for WORKER_HEARTBEAT_STALE_SECONDS; ok None when Redis cannot say."""
    try:
        raw = get_redis().get(HEARTBEAT_KEY)
    except redis.RedisError as exc:
        return {"ok": None, "error": f"unknown: Redis does not answer ({exc})"}
    if raw is None:
        return {"ok": False, "error": "no Celery worker has reported: embeddings stay pending and the usage log "
                                      "waits in Redis until one runs."}
    age = max(0.0, time.time() - float(json.loads(raw)["at"]))
    health: dict[str, Any] = {"ok": age <= settings.WORKER_HEARTBEAT_STALE_SECONDS, "last_seen_seconds": round(age, 1)}
    if not health["ok"]:
        health["error"] = (f"the Celery worker was last seen {age:.0f} s ago: embeddings stay pending and the usage "
                           "log waits in Redis until it is back.")
    return health
