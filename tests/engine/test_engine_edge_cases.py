import pytest

from engine import RouteRequest, RoutingIndex, route


def test_an_empty_catalog_answers_with_nothing(make_index, embed) -> None:
    index = make_index((), ())
    for strategy in ("auto", "bm25", "vector", "hybrid", "hierarchical"):
        result = route(index, RouteRequest(query="play jazz", strategy=strategy), embed_texts=embed)
        assert result.matches == [] and result.tokens.catalog == 0 and result.tokens.saved_pct == 0.0


def test_an_empty_toolset_answers_with_nothing(index: RoutingIndex, embed) -> None:
    request = RouteRequest(query="play jazz", allowed_tools=frozenset())
    assert route(index, request, embed_texts=embed).matches == []


def test_an_empty_query_returns_only_core_tools(index: RoutingIndex, embed) -> None:
    assert route(index, RouteRequest(query="", strategy="bm25"), embed_texts=embed).names == ["ask_user"]


@pytest.mark.parametrize("field, value", [("mode", "all"), ("strategy", "magic"), ("format", "xml"),
                                          ("limit", 0), ("threshold", 1.5)])
def test_invalid_requests_raise_value_error(index: RoutingIndex, field: str, value: object) -> None:
    with pytest.raises(ValueError):
        route(index, RouteRequest(query="x", **{field: value}), embed_texts=None)
