"""Query embeddings for routing: cached, time-bounded, behind a circuit breaker.

A route must answer within its budget even when the provider is down or slow:
a remote provider's call gets a short timeout, and after repeated failures the breaker stops
calling for a while; the engine then answers from BM25 with `fallback: true`.
"""
from __future__ import annotations

import hashlib
import threading
import time
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout

import numpy as np
import redis
from django.conf import settings

from toolcatalog.embeddings import EmbeddingProvider, EmbeddingProviderError
from shared.redis_client import get_redis


class CircuitOpen(EmbeddingProviderError):
    """The provider failed repeatedly; not calling it until the cool-down ends."""


class CircuitBreaker:
    def __init__(self, failures_to_open: int, cooldown_seconds: float) -> None:
        self.failures_to_open = failures_to_open
        self.cooldown_seconds = cooldown_seconds
        self._failures = 0
        self._opened_at: float | None = None
        self._lock = threading.Lock()

    def check(self) -> None:
        with self._lock:
            if self._opened_at is None:
                return
            if time.monotonic() - self._opened_at < self.cooldown_seconds:
                raise CircuitOpen("embedding provider circuit is open after repeated failures")
            self._opened_at = None  # half-open: let one call try

    def succeeded(self) -> None:
        with self._lock:
            self._failures = 0
            self._opened_at = None

    def failed(self) -> None:
        with self._lock:
            self._failures += 1
            if self._failures >= self.failures_to_open:
                self._opened_at = time.monotonic()

    @property
    def is_open(self) -> bool:
        return self._opened_at is not None and time.monotonic() - self._opened_at < self.cooldown_seconds


class QueryEmbedder:
    """`embed(text)` for the engine: memory cache, then Redis cache, then the provider."""

    def __init__(self, provider: EmbeddingProvider, memory_items: int = 4096) -> None:
        self.provider = provider
        self.breaker = CircuitBreaker(settings.ROUTE_EMBEDDING_FAILURES_TO_OPEN, settings.ROUTE_EMBEDDING_COOLDOWN_SECONDS)
        self._memory: OrderedDict[str, np.ndarray] = OrderedDict()
        self._memory_items = memory_items
        self._lock = threading.Lock()
        self._pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="query-embed")

    def _key(self, text: str) -> str:
        digest = hashlib.sha256(f"{self.provider.model_id}\n{text}".encode()).hexdigest()
        return f"toolrouter:qemb:{digest}"

    def cached(self, text: str) -> np.ndarray | None:
        key = self._key(text)
        with self._lock:
            if key in self._memory:
                self._memory.move_to_end(key)
                return self._memory[key]
        try:
            raw = get_redis().get(key)
        except redis.RedisError:
            return None  # no cache while Redis is away; the provider still answers
        if raw is None:
            return None
        vector = np.frombuffer(raw, dtype=np.float32)
        self._remember(key, vector)
        return vector

    def _remember(self, key: str, vector: np.ndarray) -> None:
        with self._lock:
            self._memory[key] = vector
            self._memory.move_to_end(key)
            while len(self._memory) > self._memory_items:
                self._memory.popitem(last=False)

    def __call__(self, text: str) -> np.ndarray:
        vector = self.cached(text)
        if vector is not None:
            return vector
        self.breaker.check()
        try:
            vector = self._embed(text)
        except Exception:
            self.breaker.failed()
            raise
        self.breaker.succeeded()
        key = self._key(text)
        self._remember(key, vector)
        try:
            get_redis().set(key, vector.astype(np.float32).tobytes(), ex=settings.QUERY_EMBEDDING_CACHE_SECONDS)
        except redis.RedisError:
            pass
        return vector

    def _embed(self, text: str) -> np.ndarray:
        """A remote provider is called on the pool so that the route can give up on it after the
        timeout. The local model is called on the request's own thread: torch keeps a pool of
        spinning threads per calling thread, and two such pools on two cores doubled the time of
        each query (MiniLM, one query: 7.6 ms on the calling thread, 15 ms through the pool)."""
        if self.provider.computes_in_process:
            return self.provider.embed([text])[0]
        future = self._pool.submit(self.provider.embed, [text])
        try:
            return future.result(timeout=settings.ROUTE_EMBEDDING_TIMEOUT_SECONDS)[0]
        except FutureTimeout as exc:
            raise EmbeddingProviderError(
                f"query embedding took longer than {settings.ROUTE_EMBEDDING_TIMEOUT_SECONDS}s") from exc


_embedders: dict[str, QueryEmbedder] = {}
_embedders_lock = threading.Lock()


def query_embedder(provider: EmbeddingProvider) -> QueryEmbedder:
    with _embedders_lock:
        embedder = _embedders.get(provider.model_id)
        if embedder is None or embedder.provider is not provider:
            embedder = _embedders[provider.model_id] = QueryEmbedder(provider)
        return embedder
