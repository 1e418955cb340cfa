import time

import numpy as np

from engine import CatalogSnapshot, RouteRequest, ToolEntry, build_index, route


def _catalog(n: int, dim: int = 256) -> CatalogSnapshot:
    rng = np.random.default_rng(1)
    tools = tuple(ToolEntry(f"svc{i % 97}.tool_{i}", f"Does task number {i} for service {i % 97}", None,
                            {"type": "object", "properties": {"x": {"type": "string", "description": "an input"}}})
                  for i in range(n))
    vectors = {t.name: rng.normal(size=dim).astype(np.float32) for t in tools[: n // 2]}
    return CatalogSnapshot("big", tools, (), vectors, {}, {})


def test_building_5000_tools_is_fast_and_unembedded_tools_still_rank() -> None:
    started = time.perf_counter()
    index = build_index(_catalog(5000))
    assert time.perf_counter() - started < 10
    assert int(index.vectors.has_vector.sum()) == 2500
    result = route(index, RouteRequest(query="task number 4321", strategy="hybrid"),
                   embed_texts=lambda texts: np.ones((len(texts), 256), dtype=np.float32))
    assert "svc53.tool_4321" in result.names


def test_an_index_does_not_change_when_its_snapshot_dict_does() -> None:
    snapshot = _catalog(10)
    index = build_index(snapshot)
    before = index.vectors.tool_matrix.copy()
    for vec in snapshot.tool_vectors.values():
        vec[:] = 0
    assert np.array_equal(before, index.vectors.tool_matrix)
