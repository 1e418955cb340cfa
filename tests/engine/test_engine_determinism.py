from engine import RouteRequest, ToolEntry, route

TWINS = tuple(ToolEntry(name, "Convert a currency amount", None, {}) for name in ("zeta_fx", "alpha_fx", "mid_fx"))


def test_equal_scores_are_ordered_by_name(make_index) -> None:
    index = make_index(TWINS, ())
    result = route(index, RouteRequest(query="convert currency", strategy="bm25"), embed_texts=None)
    assert result.names == ["alpha_fx", "mid_fx", "zeta_fx"]
    assert len({m.score for m in result.matches}) == 1


def test_ties_at_the_limit_keep_the_alphabetical_first(make_index) -> None:
    index = make_index(TWINS, ())
    result = route(index, RouteRequest(query="convert currency", strategy="bm25", limit=2), embed_texts=None)
    assert result.names == ["alpha_fx", "mid_fx"]


def test_same_request_same_answer(index, embed) -> None:
    request = RouteRequest(query="graph of the rain forecast", strategy="hybrid", limit=9)
    assert route(index, request, embed_texts=embed).to_dict() == route(index, request, embed_texts=embed).to_dict()
