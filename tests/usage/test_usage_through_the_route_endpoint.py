"""A real route request is logged with everything the dashboard needs, and its feedback joins it."""
import pytest

from usage import services as usage
from usage.models import RequestLog

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("demo_catalog")]


def test_route_and_tool_search_requests_are_logged(route_client) -> None:
    answer = route_client.post("/api/v1/route", {"query": "play some jazz", "limit": 3, "session_id": "s-9"},
                               format="json").json()
    searched = route_client.post("/api/v1/tool-search", {"query": "find an image"}, format="json").json()
    usage.drain_request_buffer()
    row = RequestLog.objects.get(request_id=answer["request_id"])
    assert (row.endpoint, row.client, row.query, row.session_id) == ("route", "test-client", "play some jazz", "s-9")
    assert row.strategy == answer["strategy"]["used"] and row.fallback == answer["strategy"]["fallback"]
    assert [r["name"] for r in row.results] == [m["name"] for m in answer["matches"]]
    assert row.results[0]["rank"] == 1
    assert (row.tokens_selected, row.tokens_catalog, row.tokens_saved) == (
        answer["tokens"]["selected"], answer["tokens"]["catalog"], answer["tokens"]["saved"])
    ranked = [m for m in answer["matches"] if not m["core"]]
    assert row.categories == list(dict.fromkeys(m["category"] for m in ranked if m["category"]))
    assert "general" in answer["categories"] and "general" not in row.categories  # only core tools' category
    assert RequestLog.objects.get(request_id=searched["request_id"]).endpoint == "tool_search"


def test_feedback_on_a_routed_request(route_client) -> None:
    answer = route_client.post("/api/v1/route", {"query": "play some jazz", "limit": 3, "include_core": False},
                               format="json").json()
    offered = [m["name"] for m in answer["matches"]]
    response = route_client.post("/api/v1/feedback", {"request_id": answer["request_id"],
                                                      "used_tools": [offered[0], "send_email"], "success": True},
                                 format="json")
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["offered_and_used"] == [offered[0]]
    assert body["missed"] == ["send_email"]
    assert set(body["offered_unused"]) == set(offered[1:])
