"""The filter gateway writes to the usage log like the route endpoint: each request with its query,
what it offered (catalog names, ranks), its client; the answer carries the request id, so a client can
send feedback (`used_tools`, `missing_tools`) for a filtered request too; the dashboard counts it."""
import json

import pytest
from django.contrib.auth import get_user_model

from tests.gateway.requests_shapes import names, openai_body, openai_tools, post_filter
from tests.gateway.usage_support import logged_request
from toolcatalog.models import Tool
from usage.models import Feedback

pytestmark = pytest.mark.django_db


def test_a_filtered_request_is_logged_with_what_it_offered(route_client) -> None:
    response = post_filter(route_client, openai_body("What is the weather like in San Francisco?"), "limit=3")
    kept = names(json.loads(response.content))
    row = logged_request(response["X-Toolrouter-Request-Id"])
    assert (row.endpoint, row.query, row.strategy) == ("filter", "What is the weather like in San Francisco?", "hybrid")
    assert [r["name"] for r in sorted(row.results, key=lambda r: r["rank"])] == kept
    assert row.client and row.api_key_id is not None
    assert row.tokens_catalog > row.tokens_selected > 0
    assert row.tokens_saved == int(response["X-Toolrouter-Tokens-Saved"])


def test_offered_tools_are_logged_by_their_catalog_names(route_client) -> None:
    Tool.objects.create(name="files.read_file", description="Read a file from disk")
    tools = openai_tools([("files__read_file", "Read a file from disk"), ("play_music", "Play a song")])
    response = post_filter(route_client, openai_body("read the file notes.txt", tools=tools), "limit=1")
    assert [r["name"] for r in logged_request(response["X-Toolrouter-Request-Id"]).results] == ["files.read_file"]


def test_a_passed_through_request_is_logged_with_every_tool_offered(route_client) -> None:
    body = openai_body("")
    body["messages"][-1]["content"] = ""
    response = post_filter(route_client, body)
    assert response["X-Toolrouter-Passthrough"] == "no-query"
    row = logged_request(response["X-Toolrouter-Request-Id"])
    assert row.strategy == "passthrough:no-query" and row.fallback
    assert len(row.results) == 8 and row.query is None


def test_feedback_with_missing_tools_for_a_filtered_request(route_client) -> None:
    response = post_filter(route_client, openai_body("book me a flight to Rome"), "limit=1")
    request_id = response["X-Toolrouter-Request-Id"]
    logged_request(request_id)
    answer = route_client.post("/api/v1/feedback", {"request_id": request_id, "used_tools": ["book_flight"],
                                                    "missing_tools": ["get_weather"]}, format="json")
    assert answer.status_code == 200, answer.content
    assert answer.json()["missed"] == ["get_weather"]
    feedback = Feedback.objects.get(request_id=request_id)
    assert (feedback.missing_tools, feedback.offered_and_used, feedback.used_ranks) == (["get_weather"], ["book_flight"], [1])


def test_the_dashboard_counts_filter_requests(route_client, client) -> None:
    for query in ("weather in Oslo", "send an email to Ana"):
        logged_request(post_filter(route_client, openai_body(query))["X-Toolrouter-Request-Id"])
    staff = get_user_model().objects.create_user(username="op", password="pw-for-tests-only", is_staff=True)
    client.force_login(staff)
    assert "filter 2 · proxy 0" in client.get("/dashboard/").content.decode()
