"""The benchmarks' embedder: the default model (all-MiniLM-L6-v2 from its PyPI package) as the
service runs it, in ONNX Runtime (toolcatalog/local_model.py), with an on-disk cache of
text -> vector under .data/cache/ (git-ignored), so reruns skip re-embedding catalogs. Quality
figures do not time anything; speed scripts time `fresh`.

`encode` gives stored vectors (tools, hypothetical queries, categories) as the Celery worker
makes them: the fp32 model. `encode_queries`, `fresh` and `fresh_many` give query vectors as a
web worker makes them: the query model (int8 unless EMBEDDING_LOCAL_QUERY_PRECISION says fp32).
`model` is sentence-transformers itself (torch), for a script that needs its internals."""
from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from engine import text_hash

ROOT = Path(__file__).resolve().parents[1]
CACHE = ROOT / ".data" / "cache"
MODEL_ID = "sentence-transformers/all-MiniLM-L6-v2"
os.environ.setdefault("HF_HUB_OFFLINE", "1")


class Embedder:
    """MiniLM in ONNX Runtime with an on-disk cache of text -> vector."""

    def __init__(self) -> None:
        from toolcatalog.embeddings import LocalProvider

        self.provider = LocalProvider(query_variant=os.environ.get("EMBEDDING_LOCAL_QUERY_PRECISION", "int8"))
        CACHE.mkdir(parents=True, exist_ok=True)
        self.path = CACHE / "minilm-embeddings.npz"
        self.cache: dict[str, np.ndarray] = {}
        if self.path.exists():
            with np.load(self.path) as data:
                self.cache = {k: data[k] for k in data.files}
        self._model: Any = None

    @property
    def model(self) -> Any:
        if self._model is None:
            from sentence_transformers import SentenceTransformer

            from toolcatalog.local_model import package_model_dir

            self._model = SentenceTransformer(str(package_model_dir()), device="cpu")
        return self._model

    def _cached(self, texts: Sequence[str], variant: str) -> np.ndarray:
        keys = [text_hash(f"{MODEL_ID}:onnx-{variant}\n{t}") for t in texts]
        todo = sorted({k: t for k, t in zip(keys, texts, strict=True) if k not in self.cache}.items())
        if todo:
            vectors = self.provider.encoder(variant).encode([t for _, t in todo])
            for (k, _), v in zip(todo, vectors, strict=True):
                self.cache[k] = v.astype(np.float32)
            np.savez(self.path, **self.cache)
        if not keys:
            return np.zeros((0, self.provider.dimensions), dtype=np.float32)
        return np.stack([self.cache[k] for k in keys])

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        return self._cached(texts, "fp32")

    def encode_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self._cached(texts, self.provider.query_variant)

    def fresh(self, text: str) -> np.ndarray:
        vector: np.ndarray = self.fresh_many([text])[0]
        return vector

    def fresh_many(self, texts: Sequence[str]) -> np.ndarray:
        """Embedded now, in one run, never from the cache (for timing)."""
        return self.provider.embed_queries(list(texts))

    def describe(self) -> str:
        return (f"all-MiniLM-L6-v2 in ONNX Runtime: fp32 for stored texts, {self.provider.query_variant} for queries "
                f"({self.provider.threads or 'all'} threads)")
