from engine import RouteRequest, RoutingIndex, route, scoring


def test_threshold_keeps_only_tools_scoring_at_least_the_threshold(index: RoutingIndex, embed) -> None:
    request = RouteRequest(query="play some jazz", mode="threshold", threshold=0.95, strategy="hybrid",
                           include_core=False)
    result = route(index, request, embed_texts=embed)
    ranked = [m for m in result.matches if m.via == "rank"]
    assert [m.name for m in ranked] == ["play_music"]
    assert all(m.score >= 0.95 for m in ranked)


def test_related_tools_fill_the_spare_places(index: RoutingIndex, embed) -> None:
    request = RouteRequest(query="play some jazz", mode="threshold", threshold=0.95, strategy="hybrid",
                           include_core=False, limit=3)
    result = route(index, request, embed_texts=embed)
    assert [(m.name, m.via) for m in result.matches] == [("play_music", "rank"), ("search_music", "related")]


def test_nothing_above_threshold_returns_the_best_few_as_fallback(index: RoutingIndex, embed) -> None:
    request = RouteRequest(query="play some jazz", mode="threshold", threshold=1.0, strategy="bm25",
                           include_core=False, limit=10)
    result = route(index, request, embed_texts=embed)
    assert result.strategy.fallback
    assert len(result.matches) == scoring.THRESHOLD_FALLBACK_COUNT
    assert all(m.via == "fallback" for m in result.matches)
    assert result.matches[0].name == "play_music"


def test_default_threshold_applies_when_none_is_given(index: RoutingIndex, embed) -> None:
    request = RouteRequest(query="send email", mode="threshold", strategy="bm25", include_core=False)
    result = route(index, request, embed_texts=embed)
    assert result.matches[0].name == "send_email"
    assert result.matches[0].score >= scoring.DEFAULT_THRESHOLDS["bm25"]
