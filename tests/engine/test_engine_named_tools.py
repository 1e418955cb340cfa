"""A tool the request names as code spells it ranks first (engine/named.py)."""
from __future__ import annotations

from dataclasses import replace

from engine import RouteRequest, RoutingIndex, route
from engine.named import named_tools
from engine.names import NameMap

NAMES = NameMap(["files.read_file", "get_weather", "getWeatherAlerts", "forecast", "run-report"])


def test_code_shaped_names_are_found_in_the_order_written() -> None:
    query = "Functions to use: ['getWeatherAlerts', 'get_weather']. Then run-report and files.read_file."
    assert named_tools(query, NAMES.referred) == ["getWeatherAlerts", "get_weather", "run-report", "files.read_file"]


def test_a_provider_name_names_its_catalog_tool() -> None:
    assert named_tools("call files__read_file on notes.txt", NAMES.referred) == ["files.read_file"]


def test_plain_words_other_cases_and_parts_of_names_name_nothing() -> None:
    assert named_tools("what is the forecast for today", NAMES.referred) == []
    assert named_tools("use Get_Weather or getweatheralerts", NAMES.referred) == []
    assert named_tools("see get_weather_history and my.get_weather", NAMES.referred) == []


def test_a_named_tool_ranks_first_against_the_words_around_it(index: RoutingIndex, embed) -> None:
    request = RouteRequest(query="play some jazz songs, then list_inbox", limit=2, include_core=False,
                           explain=True)
    result = route(index, request, embed_texts=embed)
    assert [(m.name, m.via) for m in result.matches] == [("list_inbox", "named"), ("play_music", "rank")]
    assert result.matches[0].score == 1.0


def test_named_tools_take_the_places_of_ranked_ones_within_the_limit(index: RoutingIndex, embed) -> None:
    request = RouteRequest(query="play some jazz songs; use make_chart or list_inbox", limit=2,
                           include_core=False, explain=True)
    matches = route(index, request, embed_texts=embed).matches
    assert {(m.name, m.via) for m in matches} == {("make_chart", "named"), ("list_inbox", "named")}


def test_of_several_named_tools_the_better_ranked_goes_first(index: RoutingIndex, embed) -> None:
    request = RouteRequest(query="send an email message with send_email or make_chart", limit=1,
                           include_core=False)
    assert [m.name for m in route(index, request, embed_texts=embed).matches] == ["send_email"]
    request = replace(request, query="create a chart or graph of the data with send_email or make_chart")
    assert [m.name for m in route(index, request, embed_texts=embed).matches] == ["make_chart"]


def test_a_named_tool_passes_any_threshold(index: RoutingIndex, embed) -> None:
    request = RouteRequest(query="play some jazz with get_artist_info", mode="threshold", threshold=0.99,
                           strategy="hybrid", include_core=False, explain=True)
    result = route(index, request, embed_texts=embed)
    assert ("get_artist_info", "named") in [(m.name, m.via) for m in result.matches]


def test_a_named_tool_outside_the_allowed_tools_stays_out(index: RoutingIndex, embed) -> None:
    request = RouteRequest(query="play jazz via list_inbox", include_core=False,
                           allowed_tools=frozenset({"play_music", "search_music"}))
    names = [m.name for m in route(index, request, embed_texts=embed).matches]
    assert "list_inbox" not in names and names[0] == "play_music"


def test_a_request_of_several_needs_still_puts_the_named_tool_first(index: RoutingIndex, embed) -> None:
    request = RouteRequest(query="Check the weather in Paris. Then send an email. Finally call make_chart.",
                           limit=3, include_core=False)
    names = [m.name for m in route(index, request, embed_texts=embed).matches]
    assert names[0] == "make_chart" and {"get_weather", "send_email"} <= set(names)
