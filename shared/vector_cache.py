"""One two-level cache for embedding vectors: this process's memory (an LRU), then Redis.

Used by the route's query embeddings (`routing.query_embeddings`) and the filter gateway's
tool vectors (`gateway.filtering`). A vector is keyed by a hash of the model and the text, so
another process (or a restart) finds it in Redis. Without Redis the memory level still
works and the caller asks the provider for the rest: a missing cache never fails a request.
"""
from __future__ import annotations

import hashlib
from collections.abc import Sequence

import numpy as np
import redis

from .lru import LRUCache
from .redis_client import get_redis


class VectorCache:
    def __init__(self, prefix: str, memory_items: int) -> None:
        self.prefix = prefix  # e.g. "toolrouter:qemb:"
        self._memory: LRUCache[str, np.ndarray] = LRUCache(memory_items)

    def key(self, model_id: str, text: str) -> str:
        return self.prefix + hashlib.sha256(f"{model_id}\n{text}".encode()).hexdigest()

    def get_many(self, keys: Sequence[str]) -> dict[str, np.ndarray]:
        """The vectors found under `keys`: memory first, then one Redis round trip for the rest."""
        found = self._memory.get_many(keys)
        missing = [k for k in keys if k not in found]
        if not missing:
            return found
        try:
            values = get_redis().mget(missing)
        except redis.RedisError:
            return found  # no shared cache while Redis is away; the provider still answers
        from_redis = {k: np.frombuffer(v, dtype=np.float32) for k, v in zip(missing, values, strict=True)
                      if isinstance(v, bytes)}
        self._memory.put_many(from_redis)
        found.update(from_redis)
        return found

    def get(self, key: str) -> np.ndarray | None:
        return self.get_many([key]).get(key)

    def put_many(self, vectors: dict[str, np.ndarray], *, ttl_seconds: int) -> None:
        """Keep `vectors` in memory and in Redis for `ttl_seconds` (Redis errors are ignored)."""
        vectors = {k: np.asarray(v, dtype=np.float32) for k, v in vectors.items()}
        self._memory.put_many(vectors)
        try:
            with get_redis().pipeline(transaction=False) as pipe:
                for key, vector in vectors.items():
                    pipe.set(key, vector.tobytes(), ex=ttl_seconds)
                pipe.execute()
        except redis.RedisError:
            pass

    def clear_memory(self) -> None:
        """Forget this process's copies (Redis keeps its own): for tests and reloads."""
        self._memory.clear()
