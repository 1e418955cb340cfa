from engine import RouteRequest, RoutingIndex, route


def test_hybrid_blends_lexical_and_semantic_evidence(index: RoutingIndex, embed) -> None:
    result = route(index, RouteRequest(query="play some jazz", strategy="hybrid", explain=True), embed_texts=embed)
    top = result.matches[0]
    assert top.name == "play_music"
    assert top.lexical_score and top.lexical_score > 0 and top.semantic_score == 1.0
    assert result.strategy.used == "hybrid"


def test_hybrid_scores_stay_within_zero_and_one(index: RoutingIndex, embed) -> None:
    result = route(index, RouteRequest(query="graph of the rain forecast", strategy="hybrid", limit=9),
                   embed_texts=embed)
    assert all(0.0 <= m.score <= 1.0 for m in result.matches)
    assert {"make_chart", "get_weather"} <= set(result.names[:3])
