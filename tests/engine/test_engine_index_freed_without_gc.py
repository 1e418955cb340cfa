"""A replaced routing index is freed as soon as nothing refers to it: no reference cycle holds it
for the cyclic GC (a 100,000-tool index is ~170 MB that would wait for the next full collection,
and a web process freezes its start-up objects out of that collector's reach, toolrouter/wsgi.py)."""
import dataclasses
import gc
import weakref
from collections.abc import Iterator

import numpy as np
import pytest

from engine import CatalogSnapshot, RouteRequest, RoutingIndex, ToolEntry, route
from engine.incremental import CatalogChanges, apply_changes

TOOLS = tuple(ToolEntry(f"tool_{i}", f"does thing number {i}", None, {"type": "object"}) for i in range(40))
VECTORS = {t.name: np.random.default_rng(i).normal(size=8).astype(np.float32) for i, t in enumerate(TOOLS)}


def _embed(texts: list[str]) -> np.ndarray:
    return np.ones((len(texts), 8), dtype=np.float32)


@pytest.fixture
def no_cyclic_gc() -> Iterator[None]:
    gc.collect()
    gc.disable()
    yield
    gc.enable()


def _used(index: RoutingIndex) -> RoutingIndex:
    route(index, RouteRequest(query="thing number 3", strategy="hybrid"), embed_texts=_embed)  # fills its caches
    return index


def test_a_built_and_a_patched_index_go_when_dropped(no_cyclic_gc) -> None:
    built = _used(RoutingIndex(CatalogSnapshot("1", TOOLS, (), VECTORS, {}, {})))
    edited = dataclasses.replace(TOOLS[3], description="now does something else")
    patched = _used(apply_changes(built, CatalogChanges("2", (edited,), frozenset(), {edited.name: VECTORS[edited.name]},
                                                        {}, (), {}, False)))
    gone = [weakref.ref(built), weakref.ref(patched)]
    del built, patched
    assert [ref() for ref in gone] == [None, None]
