"""The benchmarks' vector cache keys a query vector by the export that made it: a vector an earlier
export (another recipe, another package) left in the cache is embedded again, never read back."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import bench.embedder
from bench.embedder import Embedder
from engine import text_hash

TEXT = "what's the weather in Oslo tomorrow"


@pytest.fixture
def embedder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Embedder:
    monkeypatch.setattr(bench.embedder, "CACHE", tmp_path)
    return Embedder()


def test_a_vector_cached_by_an_earlier_export_is_embedded_again(embedder: Embedder) -> None:
    variant = embedder.provider.query_variant
    for earlier in (variant, f"model-0123456789ab-{variant}.onnx"):
        embedder.cache[text_hash(f"{embedder.model_id}:{earlier}\n{TEXT}")] = np.zeros(384, dtype=np.float32)
    vector = embedder.encode_queries([TEXT])[0]
    assert np.isclose(np.linalg.norm(vector), 1.0, atol=1e-4)
    assert np.allclose(vector, embedder.fresh(TEXT), atol=1e-5)


def test_a_vector_of_the_current_export_is_read_back(embedder: Embedder, monkeypatch: pytest.MonkeyPatch) -> None:
    first = embedder.encode_queries([TEXT])

    def no_model(variant: str) -> None:
        raise AssertionError(f"{variant} model asked for a text the cache holds")

    monkeypatch.setattr(embedder.provider, "encoder", no_model)
    assert np.array_equal(embedder.encode_queries([TEXT]), first)
