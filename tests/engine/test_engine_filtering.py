from engine import RouteRequest, RoutingIndex, route


def test_allowed_tools_restrict_the_answer(index: RoutingIndex, embed) -> None:
    request = RouteRequest(query="play some jazz", strategy="hybrid", limit=5,
                           allowed_tools=frozenset({"search_music", "get_weather"}))
    result = route(index, request, embed_texts=embed)
    assert set(result.names) <= {"search_music", "get_weather"}
    assert result.names[0] == "search_music"


def test_categories_include_their_sub_categories(index: RoutingIndex, embed) -> None:
    request = RouteRequest(query="play", strategy="bm25", limit=9, categories=("media",), include_core=False)
    result = route(index, request, embed_texts=embed)
    assert {"play_music", "podcast.play"} <= set(result.names)
    assert {"send_email", "get_weather"}.isdisjoint(result.names)


def test_a_sub_category_excludes_its_parent(index: RoutingIndex, embed) -> None:
    request = RouteRequest(query="play", strategy="bm25", limit=9, categories=("music",), include_core=False)
    result = route(index, request, embed_texts=embed)
    assert result.names[0] == "play_music"
    assert "podcast.play" not in result.names


def test_token_catalog_figure_follows_the_filter(index: RoutingIndex, embed) -> None:
    everything = route(index, RouteRequest(query="play", strategy="bm25"), embed_texts=embed)
    music = route(index, RouteRequest(query="play", strategy="bm25", categories=("music",)), embed_texts=embed)
    assert music.tokens.catalog < everything.tokens.catalog
