from engine import RouteRequest, RoutingIndex, ToolEntry, route


def test_vector_finds_a_synonym_bm25_cannot(index: RoutingIndex, embed) -> None:
    request = RouteRequest(query="will I need an umbrella", strategy="vector", limit=1)
    result = route(index, request, embed_texts=embed)
    assert result.names[0] == "get_weather"
    assert result.strategy.used == "vector"
    assert embed.calls == [["will I need an umbrella"]]


def test_hypothetical_queries_fold_into_the_tool_vector(make_index, embed) -> None:
    radio = ToolEntry("radio", "Stream internet radio stations", None, {},
                      hypothetical_queries=("play some jazz music", "put on a jazz tune"))
    other = ToolEntry("stations", "List stations", None, {})
    index = make_index((radio, other), ())
    result = route(index, RouteRequest(query="jazz", strategy="vector", explain=True), embed_texts=embed)
    assert result.matches[0].name == "radio"
    assert result.matches[0].matched_query in radio.hypothetical_queries
    # Half the tool's own vector, half its examples': close to the query, not equal to it.
    assert 0.5 < result.matches[0].semantic_score < 1.0


def test_one_stray_example_does_not_outrank_a_tool_about_the_query(make_index, embed) -> None:
    weather = ToolEntry("get_weather", "Weather forecast, rain and temperature", None, {},
                        hypothetical_queries=("will it rain", "weather tomorrow"))
    radio = ToolEntry("radio", "Stream internet radio stations", None, {},
                      hypothetical_queries=("what is the weather", "play some jazz music"))
    index = make_index((weather, radio), ())
    result = route(index, RouteRequest(query="weather forecast", strategy="vector"), embed_texts=embed)
    assert result.names[0] == "get_weather"
