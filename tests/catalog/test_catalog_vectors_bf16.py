"""The catalog's vectors in bf16 (torch, on a CPU with native bf16) are the fp32 model's to a
cosine of 0.9999, so EMBEDDING_LOCAL_CATALOG_PRECISION can change without re-ranking anything;
`auto` without torch installed embeds with ONNX fp32; an unknown precision is a clear error."""
import sys

import numpy as np
import pytest

from toolcatalog.embeddings import EmbeddingProviderError, LocalProvider

TEXTS = [
    "get current weather\nCurrent weather for a city\nParameters: location: city and country, e.g. Paris, FR",
    "play music\nPlay a song, an album or a playlist on the user's speakers",
    "how many hours did I log on the redmine project last week",
    "Café naïve résumé",
    "convert currency\n" + "Convert an amount between currencies at today's rate. " * 30,
]


def test_bf16_and_fp32_catalog_vectors_agree() -> None:
    bf16 = LocalProvider(catalog_precision="bf16")
    fp32 = LocalProvider(catalog_precision="fp32")
    assert (bf16.catalog_variant, fp32.catalog_variant) == ("bf16", "fp32")

    got, expected = bf16.embed(TEXTS), fp32.embed(TEXTS)

    assert got.shape == expected.shape == (len(TEXTS), 384) and got.dtype == np.float32
    assert np.allclose(np.linalg.norm(got, axis=1), 1.0, atol=1e-5)
    assert (got * expected).sum(axis=1).min() >= 0.9999


def test_catalog_vectors_keep_their_input_order() -> None:
    provider = LocalProvider(catalog_precision="bf16")
    forwards, backwards = provider.embed(TEXTS), LocalProvider(catalog_precision="bf16").embed(TEXTS[::-1])
    assert (forwards * backwards[::-1]).sum(axis=1).min() >= 0.9999  # distinct texts are far further apart


def test_an_unknown_catalog_precision_is_refused_with_the_setting_named() -> None:
    with pytest.raises(EmbeddingProviderError, match="EMBEDDING_LOCAL_CATALOG_PRECISION must be one of"):
        LocalProvider(catalog_precision="fp16")


def test_auto_without_torch_installed_embeds_with_onnx_fp32(monkeypatch) -> None:
    for module in ("torch", "torch.cpu"):
        monkeypatch.setitem(sys.modules, module, None)  # what `import torch` finds in an image without it
    provider = LocalProvider(catalog_precision="auto")

    vectors = provider.embed(TEXTS[:2])

    assert provider.catalog_variant == "fp32"
    assert vectors.shape == (2, 384)
    expected = LocalProvider(catalog_precision="fp32").embed(TEXTS[:2])
    assert (vectors * expected).sum(axis=1).min() >= 0.99999
