from engine import RouteRequest, RoutingIndex, route


def test_bm25_ranks_the_lexical_match_first_without_embedding(index: RoutingIndex, embed) -> None:
    result = route(index, RouteRequest(query="send an email to Bob", strategy="bm25"), embed_texts=embed)
    assert result.names[0] == "send_email"
    assert result.strategy.used == "bm25" and not result.strategy.fallback
    assert embed.calls == []


def test_bm25_matches_split_identifiers_and_stems(index: RoutingIndex) -> None:
    result = route(index, RouteRequest(query="artists information", strategy="bm25"), embed_texts=None)
    assert result.names[0] == "get_artist_info"


def test_bm25_scores_are_on_the_unit_scale(index: RoutingIndex) -> None:
    result = route(index, RouteRequest(query="weather forecast city", strategy="bm25", limit=8), embed_texts=None)
    assert all(0.0 <= m.score <= 1.0 for m in result.matches)


def test_bm25_with_no_known_word_returns_only_core_tools(index: RoutingIndex) -> None:
    result = route(index, RouteRequest(query="zzzz qqqq", strategy="bm25"), embed_texts=None)
    assert result.names == ["ask_user"]
    assert result.strategy.confidence == 0.0
