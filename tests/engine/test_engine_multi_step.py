from engine import RouteRequest, RoutingIndex, route, split_steps


def test_sequence_words_split_a_request() -> None:
    assert split_steps("find the forecast, then make a chart of it and after that mail it to Bob") == [
        "find the forecast", "make a chart of it", "mail it to Bob"]


def test_single_step_requests_are_left_alone() -> None:
    assert split_steps("what then?") == ["what then?"]
    assert split_steps("send an email") == ["send an email"]


def test_each_step_gets_its_best_tool_early(index: RoutingIndex, embed) -> None:
    request = RouteRequest(query="get the weather forecast, then draw a chart graph", strategy="hybrid",
                           limit=2, include_core=False)
    result = route(index, request, embed_query=embed)
    assert result.names == ["get_weather", "make_chart"]
    assert result.strategy.steps[0]["parts"] == ["get the weather forecast", "draw a chart graph"]
    assert len(embed.calls) == 2
