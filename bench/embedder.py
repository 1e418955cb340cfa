"""The benchmarks' embedder: the default model (all-MiniLM-L6-v2 from its PyPI package) as the
service runs it, in ONNX Runtime (toolcatalog/local_model.py), with an on-disk cache of
text -> vector under .data/cache/ (git-ignored), so reruns skip re-embedding catalogs. Quality
figures do not time anything; speed scripts time `fresh`.

`encode` gives stored vectors (tools, hypothetical queries, categories) as the Celery worker
makes them: the catalog's precision (bf16 in torch on a CPU with native bf16, else ONNX fp32).
`encode_queries`, `fresh` and `fresh_many` give query vectors as a
web worker makes them: the query model EMBEDDING_LOCAL_QUERY_PRECISION names (by default the one
`auto` picks for this CPU).
`model` is sentence-transformers itself (torch), for a script that needs its internals."""
from __future__ import annotations

import atexit
import os
import zipfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from engine import text_hash

ROOT = Path(__file__).resolve().parents[1]
CACHE = ROOT / ".data" / "cache"
MODEL_ID = "sentence-transformers/all-MiniLM-L6-v2"
# Written every this many new vectors and at exit: rewriting the whole file for each small batch
# (a request's needs) made a quality run spend most of its time saving.
SAVE_EVERY = 20_000
os.environ.setdefault("HF_HUB_OFFLINE", "1")


class Embedder:
    """MiniLM in ONNX Runtime with an on-disk cache of text -> vector."""

    def __init__(self) -> None:
        from toolcatalog.embeddings import LocalProvider

        self.provider = LocalProvider(query_variant=os.environ.get("EMBEDDING_LOCAL_QUERY_PRECISION", "auto"))
        CACHE.mkdir(parents=True, exist_ok=True)
        self.path = CACHE / "minilm-vectors.npz"
        self.cache: dict[str, np.ndarray] = self._load()
        self._unsaved = 0
        self._model: Any = None
        atexit.register(self.save)

    def _load(self) -> dict[str, np.ndarray]:
        try:
            with np.load(self.path) as data:
                return dict(zip(data["keys"].tolist(), data["vectors"], strict=True))
        except (OSError, KeyError, ValueError, EOFError, zipfile.BadZipFile):
            return {}  # no cache yet, or one cut short: the texts are embedded again

    def save(self) -> None:
        """Write the cache (to a temporary file first, so an interrupted run never leaves half a file)."""
        if not self._unsaved:
            return
        keys = list(self.cache)
        partial = self.path.with_name(self.path.stem + ".partial.npz")
        np.savez(partial, keys=np.array(keys), vectors=np.stack([self.cache[k] for k in keys]))
        partial.replace(self.path)
        self._unsaved = 0

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
            self._unsaved += len(todo)
            if self._unsaved >= SAVE_EVERY:
                self.save()
        if not keys:
            return np.zeros((0, self.provider.dimensions), dtype=np.float32)
        return np.stack([self.cache[k] for k in keys])

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        return self._cached(texts, self.provider.catalog_variant)

    def encode_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self._cached(texts, self.provider.query_variant)

    def fresh(self, text: str) -> np.ndarray:
        vector: np.ndarray = self.fresh_many([text])[0]
        return vector

    def fresh_many(self, texts: Sequence[str]) -> np.ndarray:
        """Embedded now, in one provider call, never from the cache (for timing)."""
        return self.provider.embed_queries(list(texts))

    def describe(self) -> str:
        stored = self.provider.catalog_variant
        runtime = "torch" if stored == "bf16" else "ONNX Runtime"
        return (f"all-MiniLM-L6-v2: {stored} in {runtime} for stored texts, {self.provider.query_variant} in ONNX "
                f"Runtime for queries ({self.provider.threads or 'all'} threads)")
