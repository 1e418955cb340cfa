"""engine.calibrate: the weights a catalog is ranked with come from its own held-out evidence."""
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


def lexical_catalog(seed: int = 7) -> CatalogSnapshot:
    """Each tool owns one rare word, in its description and in its two hypothetical queries; the
    vectors are noise. Only BM25 can find the tools here, and the calibration must see it."""
    rng = np.random.default_rng(seed)
    tools = tuple(ToolEntry(f"tool_{w}", f"Handles {w} records", None, {},
                            hypothetical_queries=(f"find the {w} thing", f"open {w} now")) for w in WORDS)
    def noise(n: int) -> np.ndarray:
        return rng.normal(size=(n, 16)).astype(np.float32)
    return CatalogSnapshot("t", tools, (), {t.name: noise(1)[0] for t in tools},
                           {t.name: noise(2) for t in tools}, {}, "noise")


def test_too_little_evidence_keeps_the_defaults_and_says_why() -> None:
    snapshot = lexical_catalog()
    few = CatalogSnapshot("t", snapshot.tools[:5], (), snapshot.tool_vectors,
                          {t.name: snapshot.query_vectors[t.name] for t in snapshot.tools[:5]}, {}, "noise")
    result = calibrate(few)
    assert result.params == DEFAULT_PARAMS and not result.calibrated
    assert result.evidence["hypothetical"] == 10
    assert str(MIN_EVIDENCE) in result.reason


def test_a_catalog_where_only_words_match_gets_more_lexical_weight_and_a_fast_path() -> None:
    result = calibrate(lexical_catalog())
    assert result.calibrated, result.reason
    assert result.params.lexical_weight > DEFAULT_PARAMS.lexical_weight
    assert result.params.fast_path_confidence is not None
    assert result.evidence == {"hypothetical": 60, "confirmed": 0, "used": 60}
    assert result.after["recall@1"] > result.before["recall@1"]


def test_the_calibrated_weights_route_better_than_the_defaults_on_new_requests() -> None:
    snapshot = lexical_catalog()
    params = calibrate(snapshot).params
    rng = np.random.default_rng(1)
    embed = lambda texts: rng.normal(size=(len(texts), 16)).astype(np.float32)  # noqa: E731
    def hits(index) -> int:
        return sum(route(index, RouteRequest(query=f"show me {w}", limit=1, strategy="hybrid"),
                         embed_texts=embed).names == [f"tool_{w}"] for w in WORDS)
    default_index = build_index(snapshot)
    calibrated_index = build_index(replace(snapshot, params=params))
    assert hits(calibrated_index) > hits(default_index)


def test_confirmed_queries_count_as_evidence() -> None:
    snapshot = lexical_catalog()
    rng = np.random.default_rng(3)
    confirmed = [ConfirmedQuery(f"I need {w} please", f"tool_{w}", rng.normal(size=16).astype(np.float32))
                 for w in WORDS]
    confirmed.append(ConfirmedQuery("gone", "no_such_tool", rng.normal(size=16).astype(np.float32)))
    result = calibrate(snapshot, confirmed)
    assert result.evidence == {"hypothetical": 60, "confirmed": 30, "used": 90}


def test_calibration_is_deterministic() -> None:
    assert calibrate(lexical_catalog()).to_dict() | {"seconds": 0} == \
        calibrate(lexical_catalog()).to_dict() | {"seconds": 0}
