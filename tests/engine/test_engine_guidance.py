from conftest import MEDIA_HINT, MUSIC_HINT, SHARED_HINT

from engine import RouteRequest, RoutingIndex, route


def test_guidance_includes_parent_hints_after_the_specific_one(index: RoutingIndex, embed) -> None:
    result = route(index, RouteRequest(query="play a song", strategy="bm25", limit=1), embed_texts=embed)
    assert result.guidance == f"{MUSIC_HINT}\n\n{MEDIA_HINT}"
    assert result.categories == ["music"]


def test_each_hint_appears_once(index: RoutingIndex, embed) -> None:
    request = RouteRequest(query="send an email with a chart graph", strategy="bm25", limit=4)
    result = route(index, request, embed_texts=embed)
    assert {"email", "charts"} <= set(result.categories)
    assert result.guidance.count(SHARED_HINT) == 1


def test_usage_hints_travel_with_their_matches(index: RoutingIndex, embed) -> None:
    result = route(index, RouteRequest(query="weather forecast", strategy="bm25", limit=1), embed_texts=embed)
    assert result.matches[0].hint == "Temperatures are in Celsius."
