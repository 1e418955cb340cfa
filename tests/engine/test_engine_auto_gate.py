from engine import RouteRequest, RoutingIndex, route, scoring


def test_confident_lexical_query_takes_the_fast_path(index: RoutingIndex, embed) -> None:
    result = route(index, RouteRequest(query="send email"), embed_query=embed)
    assert result.strategy.requested == "auto" and result.strategy.used == "bm25"
    assert result.strategy.confidence >= scoring.FAST_PATH_CONFIDENCE
    assert embed.calls == []
    assert result.names[0] == "send_email"


def test_unconfident_query_goes_hybrid_and_embeds_once(index: RoutingIndex, embed) -> None:
    result = route(index, RouteRequest(query="will I need an umbrella tomorrow"), embed_query=embed)
    assert result.strategy.used == "hybrid"
    assert result.strategy.confidence < scoring.FAST_PATH_CONFIDENCE
    assert len(embed.calls) == 1
    assert result.names[0] == "get_weather"


def test_gate_confidence_grows_with_the_margin() -> None:
    low = scoring.gate_confidence(scoring.GateFeatures(0.5, 0.05, 0.1))
    high = scoring.gate_confidence(scoring.GateFeatures(0.5, 0.8, 0.9))
    assert 0.0 <= low < high <= 1.0
