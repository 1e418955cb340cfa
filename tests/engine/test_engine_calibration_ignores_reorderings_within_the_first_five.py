"""The calibration keeps the defaults when another choice only reorders tools that are all offered
anyway: with a route's default limit of five, moving the right tool from second to first changes
nothing the agent gets, and such gains let noise-level choices through (bench/replay_learning.py)."""
from __future__ import annotations

from dataclasses import replace

import numpy as np

from engine import (
    DEFAULT_PARAMS,
    CatalogSnapshot,
    ConfirmedQuery,
    RouteRequest,
    ToolEntry,
    build_index,
    calibrate,
    route,
)
from engine.calibration import MIN_EVIDENCE
from tests.support.calibration import WORDS

SIBLINGS = 3
DIM = 48


def unit(vector: np.ndarray) -> np.ndarray:
    normalised: np.ndarray = (vector / np.linalg.norm(vector)).astype(np.float32)
    return normalised


def siblings_catalog() -> tuple[CatalogSnapshot, list[ConfirmedQuery]]:
    """Tools in groups of three sharing one direction; each confirmed request leans toward the next
    sibling's own direction, so by vectors it ranks its tool second, and its tool's rare word, which
    only the lexical side sees, would lift it to first with more lexical weight."""
    basis = np.linalg.qr(np.random.default_rng(5).normal(size=(DIM, DIM)))[0]
    tools: list[ToolEntry] = []
    tool_vectors: dict[str, np.ndarray] = {}
    confirmed: list[ConfirmedQuery] = []
    for g in range(len(WORDS) // SIBLINGS):
        centre, own = basis[g * (SIBLINGS + 1)], basis[g * (SIBLINGS + 1) + 1: (g + 1) * (SIBLINGS + 1)]
        for k in range(SIBLINGS):
            word = WORDS[g * SIBLINGS + k]
            tools.append(ToolEntry(f"tool_{word}", f"Handles {word} records", None, {}))
            tool_vectors[f"tool_{word}"] = unit(centre + 0.5 * own[k])
            confirmed.append(ConfirmedQuery(f"show the {word} records", f"tool_{word}",
                                            unit(centre + 0.5 * own[(k + 1) % SIBLINGS])))
    return CatalogSnapshot("t", tuple(tools), (), tool_vectors, {}, {}, "made-up"), confirmed


def test_the_defaults_stay_when_every_right_tool_is_already_offered() -> None:
    snapshot, confirmed = siblings_catalog()
    assert len(confirmed) >= MIN_EVIDENCE
    result = calibrate(snapshot, confirmed)
    assert result.before["recall@5"] == 1.0 and result.before["recall@1"] == 0.0
    assert result.reason.startswith("no combination beat the defaults"), result.reason
    # The weights stay; only the BM25 fast path may be switched on, as on any catalog.
    assert replace(result.params, fast_path_confidence=None) == DEFAULT_PARAMS


def test_more_lexical_weight_puts_each_right_tool_first() -> None:
    """What the first test turns down is a real reordering, not a tie."""
    snapshot, confirmed = siblings_catalog()
    vectors = {item.text: item.vector for item in confirmed}
    embed = lambda texts: np.stack([vectors[text] for text in texts])  # noqa: E731
    def firsts(weight: float) -> list[str]:
        index = build_index(replace(snapshot, params=replace(DEFAULT_PARAMS, lexical_weight=weight)))
        return [route(index, RouteRequest(query=item.text, limit=1, strategy="hybrid"), embed_texts=embed).names[0]
                for item in confirmed]
    right = [item.tool for item in confirmed]
    assert all(first != tool for first, tool in zip(firsts(DEFAULT_PARAMS.lexical_weight), right))
    assert firsts(0.5) == right
