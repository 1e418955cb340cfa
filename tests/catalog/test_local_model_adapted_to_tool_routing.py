"""The default local model is all-MiniLM-L6-v2 adapted to tool routing on this machine: fine-tuned on
the demo catalog's requests and their tools' texts, made once and again only when what decides it
changes, named in every vector it makes, and better than the packaged model at matching requests to
tools on a catalog it never saw."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from engine import tool_embedding_text
from toolcatalog.embeddings import EmbeddingProviderError, LocalProvider, seeds_filter_provider
from toolcatalog.local_model import (
    ADAPTED_MANIFEST,
    ADAPTED_MODEL_NAME,
    MODEL_NAME,
    adaptation_hash,
    adaptation_is_current,
    ensure_adapted,
    read_manifest,
    training_pairs,
)

PROJECT_DIR = Path(__file__).resolve().parents[2]
TINY_SET = PROJECT_DIR / "bench" / "data" / "tiny" / "bfcl-dev"  # a catalog the adaptation never saw
EXAMPLES = {
    "format": "toolcatalog/v1",
    "tools": [
        {"name": "play_music", "description": "Play a song or playlist", "category": "music",
         "hypothetical_queries": ["put on some jazz", "I want to hear Daft Punk"]},
        {"name": "get_weather", "description": "Current weather for a city",
         "hypothetical_queries": ["do I need an umbrella in Oslo"]},
        {"name": "old_tool", "description": "Retired", "enabled": False, "hypothetical_queries": ["anything"]},
    ],
}


def test_each_request_is_paired_with_its_tools_embedded_text_and_excluded_ones_are_left_out() -> None:
    music = tool_embedding_text("play_music", "Play a song or playlist", "music", {})
    assert training_pairs(EXAMPLES) == [("put on some jazz", music), ("I want to hear Daft Punk", music),
                                        ("do I need an umbrella in Oslo",
                                         tool_embedding_text("get_weather", "Current weather for a city", None, {}))]
    assert [request for request, _ in training_pairs(EXAMPLES, exclude=["put on some jazz"])] == [
        "I want to hear Daft Punk", "do I need an umbrella in Oslo"]


def test_vectors_name_the_adapted_model_with_the_hash_of_what_made_it() -> None:
    assert LocalProvider().model_id == f"local:{ADAPTED_MODEL_NAME}@{adaptation_hash()[:10]}"
    assert LocalProvider(MODEL_NAME).model_id == f"local:{MODEL_NAME}"
    assert adaptation_hash(exclude=["play some jazz"]) != adaptation_hash()  # another model, another name


def test_a_local_model_that_does_not_exist_is_refused_with_the_names_that_do() -> None:
    with pytest.raises(EmbeddingProviderError) as refused:
        LocalProvider("all-mpnet-base-v2")
    assert ADAPTED_MODEL_NAME in str(refused.value) and MODEL_NAME in str(refused.value)


def test_the_seeds_filter_runs_the_packaged_model() -> None:
    assert seeds_filter_provider(LocalProvider()).model_id == f"local:{MODEL_NAME}"
    packaged = LocalProvider(MODEL_NAME)
    assert seeds_filter_provider(packaged) is packaged


@pytest.fixture(scope="module")
def examples_file(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("examples") / "catalog.json"
    path.write_text(json.dumps(EXAMPLES))
    return path


def test_adapting_is_done_once_and_again_when_its_inputs_change(tmp_path: Path, examples_file: Path) -> None:
    out_dir = ensure_adapted(tmp_path / "adapted", catalog=examples_file)
    manifest = read_manifest(out_dir, ADAPTED_MANIFEST)
    assert manifest is not None and manifest["pairs"] == 3
    assert adaptation_is_current(out_dir, catalog=examples_file)
    made = (out_dir / ADAPTED_MANIFEST).stat().st_mtime_ns
    ensure_adapted(out_dir, catalog=examples_file)
    assert (out_dir / ADAPTED_MANIFEST).stat().st_mtime_ns == made  # current: not made again
    assert not adaptation_is_current(out_dir, ["put on some jazz"], catalog=examples_file)
    ensure_adapted(out_dir, ["put on some jazz"], catalog=examples_file)
    assert read_manifest(out_dir, ADAPTED_MANIFEST)["pairs"] == 2  # type: ignore[index]
    assert not adaptation_is_current(out_dir, catalog=examples_file)  # the folder holds the other model now


def _margins(provider: LocalProvider, tool_texts: list[str], names: list[str], queries: list[dict]) -> np.ndarray:
    """Per request, its tool's cosine minus the best other tool's: how clearly the model picks it."""
    tools = provider.embed(tool_texts)
    vectors = provider.embed_queries([q["query"] for q in queries])
    margins = []
    for query, vector in zip(queries, vectors, strict=True):
        scores = tools @ vector
        right = names.index(query["expected"][0])
        margins.append(scores[right] - np.delete(scores, right).max())
    return np.asarray(margins)


def test_the_adapted_model_tells_requests_tools_apart_better_on_a_catalog_it_never_saw() -> None:
    catalog = json.loads((TINY_SET / "catalog.json").read_text())
    queries = [json.loads(line) for line in (TINY_SET / "queries.jsonl").read_text().splitlines() if line.strip()]
    queries = [q for q in queries if len(q["expected"]) == 1]
    names = [t["name"] for t in catalog["tools"]]
    texts = [tool_embedding_text(t["name"], t.get("description") or "", t.get("category"), t.get("parameters"))
             for t in catalog["tools"]]
    adapted = _margins(LocalProvider(), texts, names, queries)
    packaged = _margins(LocalProvider(MODEL_NAME), texts, names, queries)
    assert adapted.mean() > packaged.mean()
    assert (adapted > packaged).mean() >= 2 / 3  # on most requests, not thanks to one
