"""TOP_K and THRESHOLD, on the route endpoint's 0-1 scale."""
import json

from tests.gateway.requests_shapes import names, openai_body, post_filter


def test_top_k_keeps_k_most_relevant_first(db, route_client) -> None:
    response = post_filter(route_client, openai_body("schedule a meeting in my calendar"), "mode=TOP_K&limit=4")
    kept = names(json.loads(response.content))
    assert len(kept) == 4 and kept[0] == "create_calendar_event"


def test_fewer_tools_than_k_returns_them_all_sorted(db, route_client) -> None:
    body = openai_body("what is 12 times 7", tools=None)
    body["tools"] = body["tools"][3:5]  # book_flight, calculate
    kept = names(json.loads(post_filter(route_client, body, "limit=5").content))
    assert kept == ["calculate", "book_flight"]


def test_threshold_keeps_only_tools_above_it(db, route_client) -> None:
    body = openai_body("what is the weather forecast for Paris")
    low = names(json.loads(post_filter(route_client, body, "mode=threshold&threshold=0.05").content))
    high = names(json.loads(post_filter(route_client, body, "mode=threshold&threshold=0.3").content))
    assert high == ["get_weather"]
    assert low[0] == "get_weather" and len(low) > 1


def test_threshold_nothing_passing_falls_back_to_the_best_few(db, route_client) -> None:
    response = post_filter(route_client, openai_body("weather"), "mode=threshold&threshold=1.0")
    assert response.status_code == 200
    assert 1 <= int(response["X-Toolrouter-Tools-After"]) <= 3
    assert "X-Toolrouter-Passthrough" not in response


def test_bm25_strategy_needs_no_embedding(db, route_client) -> None:
    response = post_filter(route_client, openai_body("send an email"), "strategy=bm25&limit=1")
    assert names(json.loads(response.content)) == ["send_email"]
    assert response["X-Toolrouter-Strategy"] == "bm25"
