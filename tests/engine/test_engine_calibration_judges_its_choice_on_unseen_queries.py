"""The calibration leaves the defaults only for a choice that still wins on evidence queries it
was not picked on: the best of hundreds of weight combinations always looks better on the queries
that picked it, even when every combination is the defaults plus noise."""
from __future__ import annotations

import math

import numpy as np

from engine.calibration import _held_out_gain

QUERIES = 600
COMBINATIONS = 480  # as many as the calibration's grid holds


def merits(seed: int, better_by: float = 0.0) -> np.ndarray:
    """Row 0: the defaults' merit per query; the others: the defaults plus noise; the last one is
    also `better_by` better on every query."""
    rng = np.random.default_rng(seed)
    defaults = rng.uniform(0.0, 2.0, QUERIES)
    rows = defaults + rng.normal(0.0, 0.3, size=(COMBINATIONS, QUERIES))
    rows[-1] += better_by
    return np.vstack([defaults, rows])


def beats_the_defaults(gain: np.ndarray) -> bool:
    return bool(gain.mean() > 2.0 * gain.std(ddof=1) / math.sqrt(len(gain)))


def test_the_best_of_noise_wins_on_the_queries_that_picked_it_and_not_on_the_others() -> None:
    for seed in range(5):
        table = merits(seed)
        in_sample = table[int(np.argmax(table.mean(axis=1)))] - table[0]
        assert beats_the_defaults(in_sample)  # what a choice judged on its own queries would believe
        assert not beats_the_defaults(_held_out_gain(table))


def test_a_combination_better_on_every_query_still_wins_on_unseen_ones() -> None:
    for seed in range(5):
        gain = _held_out_gain(merits(seed, better_by=0.1))
        assert beats_the_defaults(gain)
        assert 0.07 < gain.mean() < 0.13
