"""The benchmarks' embedder: a local model as the service runs it, in ONNX Runtime
(toolcatalog/local_model.py), with an on-disk cache of text -> vector under .data/cache/
(git-ignored), so reruns skip re-embedding catalogs. Quality figures do not time anything; speed
scripts time `fresh`.

`Embedder()` is the service's default model, all-MiniLM-L6-v2 adapted to tool routing;
`Embedder(PLAIN)` the package's all-MiniLM-L6-v2 as it is, the seeds' filter's model (the
baselines'); `Embedder(exclude=requests)` the model adapted without those requests, for a benchmark
that measures on requests the default model learned from (the demo catalog's), in its own folders.

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
from toolcatalog.embeddings import LocalProvider
from toolcatalog.local_model import (
    ADAPTED_MODEL_NAME,
    MODEL_NAME,
    VARIANTS,
    adaptation_hash,
    ensure_adapted,
    ensure_export,
    models_dir,
    read_manifest,
)

ROOT = Path(__file__).resolve().parents[1]
CACHE = ROOT / ".data" / "cache"
PLAIN = MODEL_NAME
# Written every this many new vectors and at exit: rewriting the whole file for each small batch
# (a request's needs) made a quality run spend most of its time saving.
SAVE_EVERY = 20_000
os.environ.setdefault("HF_HUB_OFFLINE", "1")


class HeldOutProvider(LocalProvider):
    """The adapted model made without `exclude` (requests a benchmark measures on), in folders of its
    own under the models folder: what the service would run had it never seen those requests."""

    def __init__(self, exclude: Sequence[str], query_variant: str) -> None:
        super().__init__(ADAPTED_MODEL_NAME, query_variant=query_variant)
        self.model_id = f"local:{ADAPTED_MODEL_NAME}@{adaptation_hash(exclude)[:10]}"
        # The folders are named by the exclusions alone: a changed recipe adapts again in the same
        # folders (ensure_adapted checks the inputs' hash) instead of leaving 180 MB behind per fold.
        folder = "held-out-" + text_hash("\n".join(sorted(exclude)))[:10]
        self.source = ensure_adapted(models_dir() / folder, exclude)
        self.export_dir = ensure_export(models_dir() / f"{folder}-onnx", ADAPTED_MODEL_NAME, self.source)

    def model_folder(self) -> Path:
        return self.source

    def onnx_folder(self) -> Path:
        return self.export_dir


class Embedder:
    """MiniLM in ONNX Runtime with an on-disk cache of text -> vector."""

    def __init__(self, model_name: str = ADAPTED_MODEL_NAME, exclude: Sequence[str] = ()) -> None:
        query_variant = os.environ.get("EMBEDDING_LOCAL_QUERY_PRECISION", "auto")
        self.provider = HeldOutProvider(exclude, query_variant) if exclude else \
            LocalProvider(model_name, query_variant=query_variant)
        CACHE.mkdir(parents=True, exist_ok=True)
        self.path = CACHE / f"vectors-{text_hash(self.model_id)[:12]}.npz"
        self.cache: dict[str, np.ndarray] = self._load()
        self._unsaved = 0
        self._model: Any = None
        self._variant_keys: dict[str, str] = {}
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

            self._model = SentenceTransformer(str(self.provider.model_folder()), device="cpu")
        return self._model

    def _variant_key(self, variant: str) -> str:
        """The variant as the cache keys it: an ONNX variant by its export's file, whose name holds the
        hash of the source and of the export recipe, so vectors of an earlier export are never read back."""
        if variant not in self._variant_keys:
            files = (read_manifest(self.provider.onnx_folder()) or {}).get("files", {}) if variant in VARIANTS else {}
            self._variant_keys[variant] = files.get(variant, variant)
        return self._variant_keys[variant]

    def _cached(self, texts: Sequence[str], variant: str) -> np.ndarray:
        prefix = f"{self.model_id}:{self._variant_key(variant)}"
        keys = [text_hash(f"{prefix}\n{t}") for t in texts]
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

    @property
    def model_id(self) -> str:
        """What the service records vectors of this model as made by."""
        return self.provider.model_id

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
        return (f"{self.model_id}: {stored} in {runtime} for stored texts, {self.provider.query_variant} in ONNX "
                f"Runtime for queries ({self.provider.threads or 'all'} threads)")
