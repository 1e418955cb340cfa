"""A full build of a catalog an index already served starts from that index's token counts for
every unchanged tool (engine.incremental.carry_token_counts), so its first request does not count
the whole catalog again; edited tools are counted afresh, and the figures match a cold index's."""
import dataclasses

import numpy as np

from engine import CatalogSnapshot, RankingParams, RouteRequest, RoutingIndex, ToolEntry, route
from engine.incremental import carry_token_counts

TOOLS = tuple(ToolEntry(f"tool_{i}", f"does thing number {i}", None,
                        {"type": "object", "properties": {"n": {"type": "integer", "description": f"count {i}"}}})
              for i in range(30))
VECTORS = {t.name: np.random.default_rng(i).normal(size=8).astype(np.float32) for i, t in enumerate(TOOLS)}


def _routed(index: RoutingIndex, fmt: str = "openai") -> dict:
    result = route(index, RouteRequest(query="thing number 3", strategy="bm25", format=fmt),
                   embed_texts=lambda texts: np.ones((len(texts), 8), dtype=np.float32))
    return {"selected": result.tokens.selected, "catalog": result.tokens.catalog}


def _snapshot(tools: tuple[ToolEntry, ...], params: RankingParams | None = None) -> CatalogSnapshot:
    snapshot = CatalogSnapshot("1", tools, (), VECTORS, {}, {})
    return dataclasses.replace(snapshot, params=params) if params else snapshot


def test_unchanged_tools_keep_their_counts_and_edited_or_new_ones_are_counted_afresh() -> None:
    served = RoutingIndex(_snapshot(TOOLS))
    _routed(served)  # counts every tool for the catalog total
    edited = dataclasses.replace(TOOLS[5], description="does a much longer and quite different thing now")
    tools = (*TOOLS[:5], edited, *TOOLS[6:], ToolEntry("tool_new", "brand new", None, {}))
    recalibrated = RoutingIndex(_snapshot(tools, RankingParams(lexical_weight=0.4)))

    carry_token_counts(served, recalibrated)

    known = recalibrated.token_counter.known_counts()["openai"]
    before = served.token_counter.known_counts()["openai"]
    for name in ("tool_0", "tool_17", "tool_29"):
        assert known[recalibrated.position[name]] == before[served.position[name]] > 0
    assert known[recalibrated.position["tool_5"]] == -1
    assert known[recalibrated.position["tool_new"]] == -1
    assert _routed(recalibrated) == _routed(RoutingIndex(_snapshot(tools)))


def test_the_same_catalog_rebuilt_needs_no_counting_at_all() -> None:
    served = RoutingIndex(_snapshot(TOOLS))
    _routed(served, "anthropic")
    rebuilt = RoutingIndex(_snapshot(TOOLS, RankingParams(lexical_weight=0.4)))
    carry_token_counts(served, rebuilt)
    assert (rebuilt.token_counter.known_counts()["anthropic"] >= 0).all()
    assert _routed(rebuilt, "anthropic") == _routed(served, "anthropic")
