import numpy as np

from engine import RouteRequest, RoutingIndex, route


def _steps(result) -> list[tuple[str, str]]:
    return [(s["step"], s["status"]) for s in result.strategy.steps]


def test_embedding_step_picks_the_category(index: RoutingIndex, embed) -> None:
    result = route(index, RouteRequest(query="umbrella today?", strategy="hierarchical"), embed_texts=embed)
    assert _steps(result) == [("llm", "skipped"), ("embedding", "ok")]
    assert result.strategy.used == "hierarchical" and not result.strategy.fallback
    assert result.names[0] == "get_weather"
    assert set(result.names) <= {"get_weather", "ask_user"}


def test_a_query_spanning_two_domains_gets_both_categories(index: RoutingIndex, embed) -> None:
    result = route(index, RouteRequest(query="email me a chart", strategy="hierarchical"), embed_texts=embed)
    assert set(result.strategy.steps[1]["categories"]) == {"email", "charts"}
    assert {"send_email", "make_chart"} <= set(result.names)


def test_chosen_parent_category_searches_its_sub_categories(index: RoutingIndex, embed) -> None:
    request = RouteRequest(query="media", strategy="hierarchical", default_category="media")
    result = route(index, request, embed_texts=None)
    assert ("default", "ok") in _steps(result) or ("keywords", "ok") in _steps(result)
    assert {"play_music", "podcast.play"} <= set(result.names)


def test_without_embedder_keywords_decide(index: RoutingIndex) -> None:
    result = route(index, RouteRequest(query="show my inbox", strategy="hierarchical"), embed_texts=None)
    assert _steps(result)[:3] == [("llm", "skipped"), ("embedding", "error"), ("keywords", "ok")]
    assert ("rank", "fallback") in _steps(result) and result.strategy.fallback
    assert result.names[0] == "list_inbox"


def test_default_category_is_the_last_resort(index: RoutingIndex) -> None:
    request = RouteRequest(query="zzz", strategy="hierarchical", default_category="weather")
    result = route(index, request, embed_texts=None)
    assert ("default", "ok") in _steps(result)
    assert result.names[0] == "get_weather"


def test_nothing_chosen_falls_back_to_a_flat_search(index: RoutingIndex) -> None:
    result = route(index, RouteRequest(query="zzz", strategy="hierarchical"),
                   embed_texts=lambda texts: np.zeros((len(texts), 6), dtype=np.float32))
    assert _steps(result)[-1] == ("flat", "ok")
    assert result.strategy.fallback
