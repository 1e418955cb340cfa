"""A local model (the packaged all-MiniLM-L6-v2 or its adaptation) run by torch in bfloat16: the catalog's vectors on a CPU that
computes bf16 natively (AVX512-BF16 or AMX).

There the Celery worker's batches of tool texts run 1.4x as fast as in ONNX fp32 (245 against
178 texts/s on two Zen 4 cores; bench/bench_local_model.py), with vectors at a cosine of at
least 0.99988 to torch fp32 on the dev sets' texts. Without native bf16 torch emulates it and
ONNX fp32 is faster, so `LocalProvider` picks by `native_bf16()`. Only processes that store
vectors (the worker, `manage.py reembed`, the benchmarks) load this module; web processes embed
queries with ONNX Runtime and never import torch.
"""
from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np


def native_bf16() -> bool:
    """Whether this CPU computes bf16 natively; False where torch is not installed (a slim image)."""
    try:
        import torch.cpu
    except ImportError:
        return False
    return bool(torch.cpu._is_avx512_bf16_supported() or torch.cpu._is_amx_tile_supported())


class TorchBf16Encoder:
    """`encode(texts)` -> (n, 384) float32, L2-normalised, in input order (OnnxEncoder's contract)."""

    def __init__(self, source: Path, threads: int = 0, batch_size: int = 16) -> None:
        """`source`: the model's sentence-transformers folder (local_model.model_source)."""
        import torch
        import transformers
        from sentence_transformers import SentenceTransformer

        # The worker's terminal shows embedding progress, not a model's loading bar and banner.
        transformers.utils.logging.disable_progress_bar()
        logging.getLogger("sentence_transformers").setLevel(logging.WARNING)
        if threads:
            torch.set_num_threads(threads)
        self.model: Any = SentenceTransformer(str(source), device="cpu").to(torch.bfloat16)
        self.dimensions = 384  # all-MiniLM-L6-v2
        self.batch_size = batch_size

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """sentence-transformers sorts the texts by length and runs them in batches of `batch_size`."""
        if not texts:
            return np.zeros((0, self.dimensions), dtype=np.float32)
        vectors = self.model.encode(list(texts), batch_size=self.batch_size, convert_to_tensor=True,
                                    show_progress_bar=False)
        result: np.ndarray = vectors.float().numpy()
        return result
