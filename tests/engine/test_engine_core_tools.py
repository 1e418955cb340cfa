from engine import RouteRequest, RoutingIndex, route


def test_core_tools_come_on_top_of_the_limit(index: RoutingIndex, embed) -> None:
    result = route(index, RouteRequest(query="send email", strategy="bm25", limit=1), embed_texts=embed)
    assert result.names == ["send_email", "ask_user"]
    assert result.matches[1].core and result.matches[1].via == "core"


def test_core_tools_respect_the_toolset(index: RoutingIndex, embed) -> None:
    request = RouteRequest(query="send email", strategy="bm25", allowed_tools=frozenset({"send_email"}))
    assert route(index, request, embed_texts=embed).names == ["send_email"]


def test_core_tools_respect_the_categories(index: RoutingIndex, embed) -> None:
    request = RouteRequest(query="send email", strategy="bm25", categories=("email",))
    assert "ask_user" not in route(index, request, embed_texts=embed).names


def test_include_core_false_ranks_core_tools_like_any_other(index: RoutingIndex, embed) -> None:
    request = RouteRequest(query="ask the user a question", strategy="bm25", include_core=False, limit=1)
    result = route(index, request, embed_texts=embed)
    assert result.names == ["ask_user"] and not result.matches[0].core
