from routing.engine import RouteRequest, RoutingIndex, ToolEntry, route


def test_vector_finds_a_synonym_bm25_cannot(index: RoutingIndex, embed) -> None:
    request = RouteRequest(query="will I need an umbrella", strategy="vector", limit=1)
    result = route(index, request, embed_query=embed)
    assert result.names[0] == "get_weather"
    assert result.strategy.used == "vector"
    assert embed.calls == ["will I need an umbrella"]


def test_vector_takes_the_best_hypothetical_query(make_index, embed) -> None:
    radio = ToolEntry("radio", "Stream internet radio stations", None, {},
                      hypothetical_queries=("what is the weather", "play some jazz music"))
    other = ToolEntry("stations", "List stations", None, {})
    index = make_index((radio, other), ())
    result = route(index, RouteRequest(query="jazz", strategy="vector", explain=True), embed_query=embed)
    assert result.matches[0].name == "radio"
    assert result.matches[0].matched_query == "play some jazz music"
    assert result.matches[0].semantic_score == 1.0
