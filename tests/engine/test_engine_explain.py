from engine import RouteRequest, RoutingIndex, route


def test_explain_adds_the_evidence_of_each_match(index: RoutingIndex, embed) -> None:
    result = route(index, RouteRequest(query="play some jazz", strategy="hybrid", explain=True), embed_texts=embed)
    entry = result.to_dict()["matches"][0]
    assert {"lexical_score", "semantic_score", "matched_query", "category_path", "via"} <= set(entry)
    assert entry["category_path"] == ["media", "music"]


def test_without_explain_the_match_shape_is_compact(index: RoutingIndex, embed) -> None:
    result = route(index, RouteRequest(query="play some jazz", strategy="hybrid"), embed_texts=embed)
    assert set(result.to_dict()["matches"][0]) == {"name", "score", "category", "hint", "core"}


def test_bm25_explain_has_no_semantic_score(index: RoutingIndex, embed) -> None:
    result = route(index, RouteRequest(query="send email", strategy="bm25", explain=True), embed_texts=embed)
    assert result.matches[0].semantic_score is None and result.matches[0].lexical_score > 0
