"""Query embeddings for routing: cached, time-bounded, behind a circuit breaker.

A route must answer within its budget even when the provider is down or slow:
a remote provider's call gets a short timeout, and after repeated failures the breaker stops
calling for a while; the engine then answers from BM25 with `fallback: true`.
"""
from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass

import numpy as np
from django.conf import settings

from shared.vector_cache import VectorCache
from toolcatalog.embeddings import EmbeddingProvider, EmbeddingProviderError


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


@dataclass
class EmbeddingClock:
    """Where one request's query embedding went: all of it, and the model (or provider) alone;
    the rest is the cache around it."""

    total_seconds: float = 0.0
    model_seconds: float = 0.0

    @property
    def cache_seconds(self) -> float:
        return self.total_seconds - self.model_seconds


class QueryEmbedder:
    """Query vectors for the engine: memory cache, then Redis cache, then the provider.

    `embed_many(texts)` is what the engine calls (a request and its needs in one batch): the
    cached vectors come from memory or one Redis round trip, all the others from ONE provider
    call (the local model: texts of one length run together). `embed(text)` is the same for one text.
    """

    def __init__(self, provider: EmbeddingProvider, memory_items: int = 4096) -> None:
        self.provider = provider
        self.breaker = CircuitBreaker(settings.ROUTE_EMBEDDING_FAILURES_TO_OPEN, settings.ROUTE_EMBEDDING_COOLDOWN_SECONDS)
        self._cache = VectorCache("toolrouter:qemb:", memory_items)
        self._pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="query-embed")

    def _key(self, text: str) -> str:
        return self._cache.key(self.provider.model_id, text)

    def cached(self, text: str) -> np.ndarray | None:
        return self._cache.get(self._key(text))

    def embed(self, text: str) -> np.ndarray:
        vector: np.ndarray = self.embed_many([text])[0]
        return vector

    def embed_many(self, texts: Sequence[str], clock: EmbeddingClock | None = None) -> np.ndarray:
        """Vectors of `texts`; `clock`, if given, adds where the time went."""
        clock = clock if clock is not None else EmbeddingClock()
        started = time.perf_counter()
        try:
            return self._vectors(texts, clock)
        finally:
            clock.total_seconds += time.perf_counter() - started

    def _vectors(self, texts: Sequence[str], clock: EmbeddingClock) -> np.ndarray:
        keys = [self._key(text) for text in texts]
        found = self._cache.get_many(keys)
        missing = list(dict.fromkeys(t for t, k in zip(texts, keys, strict=True) if k not in found))
        if missing:
            self.breaker.check()
            started = time.perf_counter()
            try:
                vectors = self._embed(missing)
            except Exception:
                self.breaker.failed()
                raise
            finally:
                clock.model_seconds += time.perf_counter() - started
            self.breaker.succeeded()
            fresh = {self._key(text): vector for text, vector in zip(missing, vectors, strict=True)}
            found.update(fresh)
            self._cache.put_many(fresh, ttl_seconds=settings.QUERY_EMBEDDING_CACHE_SECONDS)
        if not keys:
            return np.zeros((0, self.provider.dimensions), dtype=np.float32)
        return np.vstack([found[k] for k in keys])

    def _embed(self, texts: list[str]) -> np.ndarray:
        """A remote provider is called on the pool so that the route can give up on it after the
        timeout. The local model runs on the request's own thread: it cannot hang on a network,
        and a second calling thread per process only adds a hand-over."""
        if self.provider.computes_in_process:
            return np.asarray(self.provider.embed_queries(texts), dtype=np.float32)
        future = self._pool.submit(self.provider.embed_queries, texts)
        try:
            return np.asarray(future.result(timeout=settings.ROUTE_EMBEDDING_TIMEOUT_SECONDS), dtype=np.float32)
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


def open_circuits() -> list[str]:
    """The embedding models whose provider this process has stopped calling after repeated
    failures (its routes fall back to BM25 until the cool-down ends)."""
    with _embedders_lock:
        return sorted(model for model, embedder in _embedders.items() if embedder.breaker.is_open)
