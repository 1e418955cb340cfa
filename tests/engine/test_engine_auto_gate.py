from dataclasses import replace

from engine import RankingParams, RouteRequest, RoutingIndex, build_index, route, scoring
from tests.engine.conftest import make_snapshot


def _gated_index(gate: float | None) -> RoutingIndex:
    return build_index(replace(make_snapshot(), params=RankingParams(fast_path_confidence=gate)))


def test_confident_lexical_query_takes_the_fast_path_where_the_catalog_has_one(embed) -> None:
    result = route(_gated_index(0.9), RouteRequest(query="send email"), embed_texts=embed)
    assert result.strategy.requested == "auto" and result.strategy.used == "bm25"
    assert result.strategy.confidence >= 0.9
    assert embed.calls == []
    assert result.names[0] == "send_email"


def test_unconfident_query_goes_hybrid_and_embeds_once(embed) -> None:
    result = route(_gated_index(0.9), RouteRequest(query="will I need an umbrella tomorrow"), embed_texts=embed)
    assert result.strategy.used == "hybrid"
    assert result.strategy.confidence < 0.9
    assert embed.calls == [["will I need an umbrella tomorrow"]]
    assert result.names[0] == "get_weather"


def test_without_a_calibrated_gate_auto_always_embeds(index: RoutingIndex, embed) -> None:
    """The defaults have no fast path: nothing has shown yet that BM25 alone is as good on this catalog."""
    assert index.params.fast_path_confidence is None
    result = route(index, RouteRequest(query="send email"), embed_texts=embed)
    assert result.strategy.used == "hybrid"
    assert embed.calls == [["send email"]]
    assert result.names[0] == "send_email"


def test_gate_confidence_grows_with_the_margin() -> None:
    low = scoring.gate_confidence(scoring.GateFeatures(0.5, 0.05, 0.1))
    high = scoring.gate_confidence(scoring.GateFeatures(0.5, 0.8, 0.9))
    assert 0.0 <= low < high <= 1.0
