"""A request that needs several tools is split into its needs; the answer covers each need of a
short request before any need gets a second tool, and ranks a task list's tools by the recall each
is expected to add; in a request of several parts, a need is cut at "and" into halves that share
its weight, and a request of one part into halves that weigh half a need together, ranked by the
recall each tool is expected to add (engine/needs.py)."""
from __future__ import annotations

import numpy as np

from engine import RouteRequest, RoutingIndex, ToolEntry, route
from engine.needs import MAX_NEEDS, Need, and_halves, content_words, cover_order, joined_down_to, split_needs
from tests.engine.conftest import PARAMS, TOOLS

THREE_NEEDS = "Play some jazz from my playlist. Then send an email to Anna, and finally draw a chart of our sales."


def texts(query: str) -> list[str]:
    return [need.text for need in split_needs(query)]


def test_sentences_and_sequence_words_start_needs() -> None:
    assert texts(THREE_NEEDS) == ["Play some jazz from my playlist", "send an email to Anna",
                                        "draw a chart of our sales"]


def test_a_request_with_one_need_stays_whole() -> None:
    assert texts("What is the weather in Paris tomorrow?") == ["What is the weather in Paris tomorrow?"]


def test_a_part_without_content_words_is_not_a_need() -> None:
    assert texts("Send the weekly report to Anna, and then?") == ["Send the weekly report to Anna, and then?"]


def test_pronouns_and_courtesies_are_not_needs() -> None:
    for request in ("I want to learn how to code in Python. Can you help me with that?",
                    "I am also interested in the renewable energy policies in China."):
        assert texts(request) == [request]


def test_words_of_any_script_are_content_words() -> None:
    assert texts("Translate «Доброе утро». Then email it to Anna.") == [
        "Translate «Доброе утро»", "email it to Anna"]
    assert content_words("Καλημέρα κόσμε") == 2 and content_words("I'm") == 0


def test_next_starts_a_need_only_as_a_step() -> None:
    dated = "Book a table for next Tuesday with 50% off your next purchase."
    assert texts(dated) == [dated]
    assert texts("Find the weather in Paris for next week. Next, email the forecast to Anna.") == [
        "Find the weather in Paris for next week", "email the forecast to Anna"]


SEVEN_NEEDS = ("Play some jazz from my playlist. Then search the albums of that artist. Get information about "
               "the artist. Also play the latest podcast episode. Then check the weather forecast for Paris. "
               "Send an email to Anna about it. Finally draw a chart of our sales.")


def test_needs_are_capped_and_no_part_is_lost() -> None:
    request = " ".join(f"Open ticket number {i} now." for i in range(MAX_NEEDS + 3))
    needs = texts(request)
    assert len(needs) == MAX_NEEDS
    assert all(f"ticket number {i} " in " ".join(needs) + " " for i in range(MAX_NEEDS + 3))


def test_the_shortest_neighbours_are_joined_first() -> None:
    parts = ["book a flight to Rome for two adults in business class", "thanks a lot", "pay the hotel bill now",
             "and call the airline about the luggage"]
    assert joined_down_to(parts, 3) == [parts[0], "thanks a lot. pay the hotel bill now", parts[3]]


WEATHER_AND_CHART = ("Play some jazz from my playlist. Then check the weather forecast for Paris tomorrow and draw "
                     "a chart of the monthly rainfall totals.")


def test_a_task_lists_need_is_cut_at_and_into_halves_that_share_its_weight() -> None:
    assert split_needs(WEATHER_AND_CHART) == [
        Need("Play some jazz from my playlist"), Need("check the weather forecast for Paris tomorrow", 0.5),
        Need("draw a chart of the monthly rainfall totals", 0.5)]


def test_and_between_a_few_words_does_not_cut() -> None:
    assert and_halves("gather the labor and employment policies of France") == [
        "gather the labor and employment policies of France"]
    assert and_halves("get the name and job title of employee 42 in the sales department") == [
        "get the name and job title of employee 42 in the sales department"]


def test_a_request_of_one_part_is_cut_at_and_into_halves_that_weigh_half_a_need() -> None:
    """Chatty requests for one tool say "and" too, so the whole request outweighs its halves."""
    request = "Find pet-friendly hotels in Nagoya with pet supplies and book a quiet room for two nights there."
    assert split_needs(request) == [Need("Find pet-friendly hotels in Nagoya with pet supplies", 0.25),
                                    Need("book a quiet room for two nights there", 0.25)]


def test_a_request_of_one_part_is_cut_at_its_comma_and_with_two_content_words_a_side() -> None:
    """The comma marks two clauses, so a short side still counts as a need of its own."""
    assert split_needs("Translate this letter to French, and email it to Anna") == [
        Need("Translate this letter to French", 0.25), Need("email it to Anna", 0.25)]


def test_and_without_a_comma_or_before_a_short_list_item_does_not_cut() -> None:
    for request in ("Translate this letter to French and email it to Anna", "Find cheap flights, hotels, and cars",
                    "Translate this letter to French, and email it to Anna, and print two copies"):
        assert split_needs(request) == [Need(request)]


EMAIL_AND_CHART = "Send an email message to the recipient Anna about lunch and draw a chart of our sales totals"
ARCHIVE_EMAIL = ToolEntry("archive_email", "Archive an email message from the inbox", "email", PARAMS)


def test_the_route_offers_a_tool_for_each_half_of_a_request_of_one_part(make_index, embed) -> None:
    """Ranked whole, the email words outvote the chart, and the three email tools take every place;
    each half ranked too, the chart takes the third."""
    index = make_index(TOOLS + (ARCHIVE_EMAIL,))
    result = route(index, RouteRequest(query=EMAIL_AND_CHART, strategy="hybrid", limit=3, include_core=False,
                                       explain=True),
                   embed_texts=embed)
    assert result.names[0] == "send_email" and "make_chart" in result.names
    split = next(s for s in result.strategy.steps if s["step"] == "split")
    assert split["weights"] == [0.25, 0.25]


def test_a_request_of_one_part_is_embedded_as_written_beside_its_halves(index: RoutingIndex, embed) -> None:
    request = ("Play a jazz song from my favourite playlist and send an email message to Anna about lunch and draw "
               "a chart of the monthly sales totals")
    assert len(texts(request)) == 3
    route(index, RouteRequest(query=request, strategy="hybrid"), embed_texts=embed)
    assert embed.calls == [[request, *texts(request)]]


def test_halves_are_cut_only_while_there_is_room_for_them() -> None:
    parts = [f"Open ticket number {i} now" for i in range(MAX_NEEDS - 1)]
    request = ". ".join([*parts, "Check the weather forecast for Paris and draw a chart of the rainfall totals"])
    needs = split_needs(request)
    assert len(needs) == MAX_NEEDS
    assert all(need.weight == 1.0 for need in needs)


def test_the_route_offers_a_tool_for_each_half_of_a_need(index: RoutingIndex, embed) -> None:
    result = route(index, RouteRequest(query=WEATHER_AND_CHART, strategy="hybrid", limit=3, include_core=False,
                                       explain=True),
                   embed_texts=embed)
    assert set(result.names) == {"play_music", "get_weather", "make_chart"}
    split = next(s for s in result.strategy.steps if s["step"] == "split")
    assert split["weights"] == [1.0, 0.5, 0.5]


def test_a_long_request_is_offered_its_last_need(index: RoutingIndex, embed) -> None:
    assert len(texts(SEVEN_NEEDS)) == MAX_NEEDS
    result = route(index, RouteRequest(query=SEVEN_NEEDS, strategy="hybrid", limit=MAX_NEEDS + 1), embed_texts=embed)
    assert "make_chart" in result.names


def test_each_need_is_covered_before_any_gets_a_second_tool() -> None:
    # Tools 0-1 suit the whole request; 2-3 the first need; 4-5 the second (runners-up 3 and 5).
    whole = np.array([0.9, 0.85, 0.5, 0.45, 0.4, 0.35])
    first_need = np.array([0.3, 0.3, 0.9, 0.8, 0.1, 0.1])
    second_need = np.array([0.2, 0.2, 0.1, 0.1, 0.7, 0.6])
    order = cover_order(whole, [first_need, second_need], np.ones(6, dtype=bool), count=6)
    assert set(order[:3]) == {0, 2, 4}
    assert order[0] == 0  # the whole request's best tool leads


# Tool 0 suits the whole request, tool 1 is its runner-up and no need's; tools 2 and 3 are the first
# need's (a part that names two tools), 4 and 5 the other needs' best.
WHOLE = np.array([0.95, 0.8, 0.5, 0.5, 0.4, 0.4])
FIRST_NEED = np.array([0.1, 0.1, 0.9, 0.85, 0.1, 0.1])
SECOND_NEED = np.array([0.1, 0.1, 0.1, 0.1, 0.9, 0.1])
THIRD_NEED = np.array([0.1, 0.1, 0.1, 0.1, 0.1, 0.9])


def test_a_task_list_offers_a_needs_runner_up_before_the_whole_requests() -> None:
    order = cover_order(WHOLE, [FIRST_NEED, SECOND_NEED, THIRD_NEED], np.ones(6, dtype=bool), count=6)
    assert set(order[:4]) == {0, 2, 4, 5}
    assert order[4] == 3  # the first need's runner-up before the whole request's


def rows_of(size: int, floor: float, **scores: float) -> np.ndarray:
    """A row of `size` tools scored `floor`, but tool N scored `scores["tN"]`."""
    row = np.full(size, floor)
    for name, score in scores.items():
        row[int(name[1:])] = score
    return row


def test_a_need_sure_of_its_tool_gives_its_runner_up_place_to_a_torn_need() -> None:
    # The first need is sure of tool 0 (its runner-up, tool 1, scores high but far below); the
    # second is torn between tools 2 and 3; the third is sure of tool 4.
    whole = rows_of(10, 0.3)
    sure = rows_of(10, 0.1, t0=0.95, t1=0.8)
    torn = rows_of(10, 0.1, t2=0.6, t3=0.59)
    other = rows_of(10, 0.1, t4=0.9)
    order = cover_order(whole, [sure, torn, other], np.ones(10, dtype=bool), count=4)
    assert set(order) == {0, 2, 3, 4}


def test_a_part_that_suits_many_tools_alike_takes_no_place_from_the_needs() -> None:
    # "I need your help with several tasks" suits tools 5-9 alike; the real needs are sure of tool 0
    # and torn between tools 2 and 3.
    whole = rows_of(10, 0.3)
    preamble = rows_of(10, 0.1, t5=0.5, t6=0.5, t7=0.5, t8=0.5, t9=0.5)
    sure = rows_of(10, 0.1, t0=0.9)
    torn = rows_of(10, 0.1, t2=0.6, t3=0.59)
    order = cover_order(whole, [preamble, sure, torn], np.ones(10, dtype=bool), count=3)
    assert set(order) == {0, 2, 3}


def test_a_task_list_never_offers_a_tool_outside_the_pool_or_scored_zero() -> None:
    whole = np.array([0.9, 0.8, 0.7, 0.0])
    needs = [np.array([0.95, 0.1, 0.6, 0.0]), np.array([0.9, 0.7, 0.1, 0.0]), np.array([0.8, 0.1, 0.1, 0.0])]
    pool = np.array([False, True, True, True])
    assert list(cover_order(whole, needs, pool, count=4)) == [1, 2]


def test_a_task_lists_ties_go_to_the_lower_index() -> None:
    flat = np.full(6, 0.5)
    assert list(cover_order(flat, [flat, flat, flat], np.ones(6, dtype=bool), count=4)) == [0, 1, 2, 3]


def test_two_parts_are_followed_by_the_whole_request_once_covered() -> None:
    # "Find the forecast for Paris. For temperature use Celsius?": the detail's runners-up take no place.
    order = cover_order(WHOLE, [FIRST_NEED, SECOND_NEED], np.ones(6, dtype=bool), count=6)
    assert set(order[:3]) == {0, 2, 4}
    assert list(order[3:]) == [1, 3, 5]


def test_tools_outside_the_pool_are_never_picked() -> None:
    whole = np.array([0.9, 0.8, 0.7])
    need = np.array([0.95, 0.1, 0.6])
    pool = np.array([False, True, True])
    assert list(cover_order(whole, [need], pool, count=3)) == [2, 1]


def test_the_route_offers_one_tool_per_need(index: RoutingIndex, embed) -> None:
    result = route(index, RouteRequest(query=THREE_NEEDS, strategy="hybrid", limit=4, explain=True),
                   embed_texts=embed)
    assert {"play_music", "send_email", "make_chart"} <= set(result.names[:4])
    split = next(s for s in result.strategy.steps if s["step"] == "split")
    assert split["parts"] == texts(THREE_NEEDS)
    assert split["weights"] == [1.0, 1.0, 1.0]


def test_a_request_of_two_needs_and_its_needs_are_embedded_in_one_call(index: RoutingIndex, embed) -> None:
    two_needs = "Play some jazz from my playlist. Then send an email to Anna."
    route(index, RouteRequest(query=two_needs, strategy="hybrid"), embed_texts=embed)
    assert embed.calls == [[two_needs, *texts(two_needs)]]


def test_a_request_of_three_needs_is_not_embedded_again_beside_them(index: RoutingIndex, embed) -> None:
    """Its own vector is the mean of its needs': the same words, at half the model's work."""
    result = route(index, RouteRequest(query=THREE_NEEDS, strategy="hybrid"), embed_texts=embed)
    assert embed.calls == [texts(THREE_NEEDS)]
    assert {"play_music", "send_email"} <= set(result.names)
