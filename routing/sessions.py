"""Tools a session has discovered, kept in Redis with a TTL (the seeds' `activeTools`).

Sessions are namespaced by API key, so one client never reads another's session.
Without Redis a route still answers; it just has no session memory.
"""
from __future__ import annotations

from collections.abc import Callable

import redis
from django.conf import settings

from shared.redis_client import get_redis


def _key(api_key_id: int | None, session_id: str) -> str:
    return f"toolrouter:session:{api_key_id or 0}:{session_id}"


def remember_tools(api_key_id: int | None, session_id: str, tool_names: list[str],
                   visible: Callable[[str], bool] = lambda name: True) -> list[str] | None:
    """Add `tool_names` to the session and return its tools, oldest first; None when Redis is away.

    A remembered tool the caller may no longer see (`visible` says no: removed from the key's
    toolset, disabled, deleted) is dropped from the session, not returned."""
    key = _key(api_key_id, session_id)
    try:
        client = get_redis()
        with client.pipeline() as pipe:
            existing = client.zrange(key, 0, -1)
            known = {n.decode() if isinstance(n, bytes) else str(n) for n in existing}
            start = len(existing)
            new = {name: start + i for i, name in enumerate(n for n in tool_names if n not in known)}
            if new:
                pipe.zadd(key, new)
            pipe.zremrangebyrank(key, 0, -settings.SESSION_MAX_TOOLS - 1)
            pipe.expire(key, settings.SESSION_TTL_SECONDS)
            pipe.zrange(key, 0, -1)
            names = [n.decode() for n in pipe.execute()[-1]]
        gone = [n for n in names if not visible(n)]
        if gone:
            client.zrem(key, *gone)
    except redis.RedisError:
        return None
    return [n for n in names if visible(n)]
