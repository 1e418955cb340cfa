"""Tool rows are stored as int8 with a scale per row: a quarter of the memory of float32, and
cosines within about 0.002 of the exact ones, so rankings hold."""
import numpy as np

from engine.vectors import FLOAT_SCORING_MAX_BYTES, VectorIndex, normalise_rows, quantise_rows

DIM = 384


def _unit_rows(n: int, seed: int) -> np.ndarray:
    return normalise_rows(np.random.default_rng(seed).normal(size=(n, DIM)))


def test_scores_stay_within_rounding_of_the_exact_cosines() -> None:
    rows = _unit_rows(5_000, 1)
    names = [f"tool_{i}" for i in range(len(rows))]
    index = VectorIndex(names, dict(zip(names, rows, strict=True)), {}, {})
    queries = _unit_rows(20, 2)
    for query in queries:
        exact = rows @ query
        scored = index.score(query).cosine
        assert np.abs(scored - exact).max() < 2e-3
    assert index.tool_matrix.dtype == np.int8
    assert index.tool_matrix.nbytes + index.tool_scale.nbytes < rows.nbytes / 3


def test_a_tool_close_to_the_request_keeps_its_place() -> None:
    rows = _unit_rows(2_000, 3)
    query = rows[7] + 0.05 * _unit_rows(1, 4)[0]
    names = [f"tool_{i}" for i in range(len(rows))]
    index = VectorIndex(names, dict(zip(names, rows, strict=True)), {}, {})
    exact_order = np.argsort(-(rows @ query))[:10]
    assert list(np.argsort(-index.score(query).cosine)[:10]) == list(exact_order)


def test_rows_without_a_vector_score_zero_and_round_trip_stays_unit() -> None:
    matrix = np.vstack([_unit_rows(3, 5), np.zeros((1, DIM), dtype=np.float32)])
    values, scale = quantise_rows(matrix)
    restored = values.astype(np.float32) * scale[:, None]
    assert np.allclose(np.linalg.norm(restored[:3], axis=1), 1.0, atol=2e-3)
    assert not restored[3].any()


def test_a_small_catalog_scores_from_float32_rows_with_the_same_products() -> None:
    rows = _unit_rows(2_000, 6)
    names = [f"tool_{i}" for i in range(len(rows))]
    index = VectorIndex(names, dict(zip(names, rows, strict=True)), {}, {})
    assert index.scoring_rows.dtype == np.float32
    assert np.array_equal(index.scoring_rows, index.tool_matrix)  # the int8 values, nothing else
    query = _unit_rows(1, 7)[0]
    from_int8 = index.tool_matrix.astype(np.float32) @ query * index.tool_scale
    assert np.array_equal(index.score(query).cosine, from_int8)


def test_a_large_catalog_keeps_only_its_int8_rows() -> None:
    n = FLOAT_SCORING_MAX_BYTES // (4 * DIM) + 1
    rows = _unit_rows(n, 8)
    names = [f"tool_{i}" for i in range(n)]
    index = VectorIndex(names, dict(zip(names, rows, strict=True)), {}, {})
    assert index.scoring_rows is index.tool_matrix
