"""The query model's precision: `auto` takes int8 where the CPU has int8 dot products (or its
flags are unknown) and fp32 on an x86 CPU without them, where int8 is the slower; both agree
with each other closely enough that the choice re-ranks nothing; an unknown value is refused."""
import platform

import numpy as np
import pytest

from toolcatalog.embeddings import EmbeddingProviderError, LocalProvider
from toolcatalog.local_model import cpu_flags, query_variant_for

ZEN4 = frozenset({"sse4_2", "avx2", "avx512f", "avx512_vnni", "avx512_bf16"})
ALDER_LAKE = frozenset({"sse4_2", "avx2", "avx_vnni"})
ZEN3 = frozenset({"sse4_2", "avx2", "fma"})
SAPPHIRE_RAPIDS = frozenset({"avx2", "avx512f", "amx_int8", "amx_tile"})


def test_int8_where_the_cpu_has_int8_dot_products() -> None:
    assert [query_variant_for(f) for f in (ZEN4, ALDER_LAKE, SAPPHIRE_RAPIDS)] == ["int8", "int8", "int8"]


def test_fp32_on_x86_without_them() -> None:
    assert query_variant_for(ZEN3) == "fp32"


def test_int8_where_the_flags_are_unknown() -> None:
    assert query_variant_for(frozenset()) == "int8"


@pytest.mark.skipif(platform.machine() not in ("x86_64", "AMD64"), reason="x86 lists its flags in /proc/cpuinfo")
def test_this_cpu_flags_are_read() -> None:
    assert "sse2" in cpu_flags()


def test_auto_is_this_cpu_choice_and_the_default() -> None:
    assert LocalProvider().query_variant == query_variant_for(cpu_flags())
    assert LocalProvider(query_variant="auto").query_variant == query_variant_for(cpu_flags())
    assert LocalProvider(query_variant="fp32").query_variant == "fp32"


def test_int8_and_fp32_query_vectors_agree() -> None:
    texts = ["what's the weather in Paris tomorrow", "play some jazz on the kitchen speaker",
             "Load the sales data. Then chart revenue by month, and finally email it to my manager"]
    int8 = LocalProvider(query_variant="int8").embed_queries(texts)
    fp32 = LocalProvider(query_variant="fp32").embed_queries(texts)
    assert (int8 * fp32).sum(axis=1).min() >= 0.995
    assert np.allclose(np.linalg.norm(fp32, axis=1), 1.0, atol=1e-5)


def test_an_unknown_query_precision_is_refused_with_the_setting_named() -> None:
    with pytest.raises(EmbeddingProviderError, match="EMBEDDING_LOCAL_QUERY_PRECISION must be one of"):
        LocalProvider(query_variant="fp16")
