"""engine.adapter: a catalog whose requests are worded unlike its descriptions gets a query
adapter from its own evidence, and only when the held-out evidence shows it helps."""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from engine import CatalogSnapshot, ConfirmedQuery, QueryAdapter, RouteRequest, ToolEntry, build_index, calibrate, route
from engine.adapter import MIN_PAIRS, fit_query_adapter
from engine.incremental import CatalogChanges, apply_changes
from engine.vectors import normalise, normalise_rows

DIM = 16
TOOLS = 24


class RotatedRequests:
    """Tools with random unit vectors; requests for a tool lie near a fixed rotation of its
    vector, as chatty requests lie apart from terse descriptions: plain cosine finds little."""

    def __init__(self, seed: int = 3) -> None:
        self.rng = np.random.default_rng(seed)
        self.tool_vectors = normalise_rows(self.rng.normal(size=(TOOLS, DIM)))
        self.rotation = np.linalg.qr(self.rng.normal(size=(DIM, DIM)))[0].astype(np.float32)
        self.names = [f"tool_{i:02d}" for i in range(TOOLS)]

    def request(self, tool: int) -> np.ndarray:
        return normalise(self.tool_vectors[tool] @ self.rotation + 0.15 * self.rng.normal(size=DIM))

    def snapshot(self) -> CatalogSnapshot:
        tools = tuple(ToolEntry(name, f"Tool number {i}", None, {}) for i, name in enumerate(self.names))
        return CatalogSnapshot("t", tools, (), dict(zip(self.names, self.tool_vectors, strict=True)), {}, {}, "toy")

    def confirmed(self, per_tool: int) -> list[ConfirmedQuery]:
        return [ConfirmedQuery(f"request {k} for {name}", name, self.request(i))
                for i, name in enumerate(self.names) for k in range(per_tool)]


def recall_at_1(world: RotatedRequests, snapshot: CatalogSnapshot, per_tool: int = 5) -> float:
    index = build_index(snapshot)
    hits = 0
    for i, name in enumerate(world.names):
        for _ in range(per_tool):
            vector = world.request(i)
            result = route(index, RouteRequest(query=f"new request {i}", strategy="vector", limit=1),
                           embed_texts=lambda texts, v=vector: np.stack([v for _ in texts]))
            hits += result.names[:1] == [name]
    return hits / (len(world.names) * per_tool)


def test_enough_confirmed_traffic_fits_an_adapter_that_finds_new_requests_tools() -> None:
    world = RotatedRequests()
    result = calibrate(world.snapshot(), world.confirmed(per_tool=6))
    assert result.calibrated, result.reason
    assert result.params.query_adapter_share > 0
    assert result.query_adapter is not None and result.query_adapter.pairs == TOOLS * 6
    plain = recall_at_1(world, world.snapshot())
    adapted = recall_at_1(world, result.applied_to(world.snapshot()))
    assert adapted >= plain + 0.3, (plain, adapted)


def test_too_few_pairs_fit_no_adapter() -> None:
    world = RotatedRequests()
    per_tool = 2
    assert TOOLS * per_tool < MIN_PAIRS
    result = calibrate(world.snapshot(), world.confirmed(per_tool=per_tool))
    assert result.params.query_adapter_share == 0 and result.query_adapter is None


def test_requests_worded_like_the_descriptions_get_no_adapter() -> None:
    world = RotatedRequests()
    world.rotation = np.eye(DIM, dtype=np.float32)  # requests lie near their tools already
    result = calibrate(world.snapshot(), world.confirmed(per_tool=6))
    assert result.params.query_adapter_share == 0 and result.query_adapter is None


def test_the_adapter_keeps_its_matrix_through_storage() -> None:
    world = RotatedRequests()
    queries = np.stack([world.request(i) for i in range(TOOLS) for _ in range(3)])
    adapter = fit_query_adapter(queries, np.repeat(world.tool_vectors, 3, axis=0))
    again = QueryAdapter.from_bytes(adapter.to_bytes(), adapter.pairs)
    assert np.array_equal(again.matrix, adapter.matrix) and again.pairs == TOOLS * 3
    with pytest.raises(ValueError, match="not a square matrix"):
        QueryAdapter.from_bytes(adapter.to_bytes()[:-4], 1)
    with pytest.raises(ValueError, match="dimensions"):
        adapter.apply(np.ones((1, DIM + 1), dtype=np.float32), 0.5)


def test_an_index_patched_after_an_edit_keeps_ranking_with_the_adapter() -> None:
    world = RotatedRequests()
    result = calibrate(world.snapshot(), world.confirmed(per_tool=6))
    index = build_index(result.applied_to(world.snapshot()))
    edited = replace(world.snapshot().tools[0], description="Tool number 0, edited")
    changes = CatalogChanges("t2", (edited,), frozenset(), {edited.name: world.tool_vectors[0]}, {}, (), {}, False)
    patched = apply_changes(index, changes)
    full = build_index(replace(result.applied_to(world.snapshot()), version="t2",
                               tools=(edited, *world.snapshot().tools[1:])))
    assert patched.vectors.adapter is index.vectors.adapter and patched.vectors.adapter_share == 0.5
    for i in range(TOOLS):
        vector = world.request(i)
        request = RouteRequest(query=f"request {i}", strategy="vector", limit=3)
        embed = lambda texts, v=vector: np.stack([v for _ in texts])  # noqa: E731
        assert route(patched, request, embed_texts=embed).names == route(full, request, embed_texts=embed).names
