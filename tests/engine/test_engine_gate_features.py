"""The `auto` gate reads the BM25 scores' shape over the candidates: the best score against BM25's
ceiling, and its margins over the second and the fifth best, a tool without a shared word scoring 0."""
from __future__ import annotations

import numpy as np
import pytest

from engine.scoring import GateFeatures, gate_features


def by_sorting(raw: np.ndarray, ideal: float) -> GateFeatures:
    """The features read off the whole list sorted, zeros and all."""
    top = np.sort(raw)[::-1][:5]
    if top[0] <= 0:
        return GateFeatures(0.0, 0.0, 0.0)
    second = top[1] if len(top) > 1 else 0.0
    fifth = top[-1] if len(top) > 1 else 0.0
    return GateFeatures(min(top[0] / ideal, 2.0), (top[0] - second) / top[0], (top[0] - fifth) / top[0])


@pytest.mark.parametrize("tools", [1, 2, 4, 5, 90, 4076])
@pytest.mark.parametrize("matching", [0, 1, 2, 3, 5, 40])
def test_features_are_those_of_the_sorted_scores(tools: int, matching: int) -> None:
    rng = np.random.default_rng(tools * 100 + matching)
    raw = np.zeros(tools, dtype=np.float32)
    raw[rng.choice(tools, min(matching, tools), replace=False)] = rng.uniform(0.5, 9.0, min(matching, tools))
    got, expected = gate_features(raw, 6.0), by_sorting(raw, 6.0)
    assert got.coverage == pytest.approx(expected.coverage)
    assert got.margin2 == pytest.approx(expected.margin2)
    assert got.margin5 == pytest.approx(expected.margin5)


def test_one_tool_sharing_the_requests_words_stands_out_by_its_whole_score() -> None:
    raw = np.zeros(4076, dtype=np.float32)
    raw[17] = 3.0
    assert gate_features(raw, 6.0) == GateFeatures(0.5, 1.0, 1.0)


def test_tied_best_scores_leave_no_margin_over_the_second() -> None:
    raw = np.zeros(500, dtype=np.float32)
    raw[[3, 9, 11, 40, 41, 42]] = [4.0, 4.0, 2.0, 1.0, 1.0, 1.0]
    features = gate_features(raw, 4.0)
    assert features.margin2 == 0.0 and features.margin5 == pytest.approx(0.75)
