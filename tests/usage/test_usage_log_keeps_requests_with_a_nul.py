"""A request whose text holds a NUL (a chat message may; PostgreSQL's text may not) is still logged,
the NUL shown as U+FFFD, so feedback for its request id is not a 404."""
from __future__ import annotations

import pytest

from tests.gateway.requests_shapes import openai_body, post_filter
from tests.gateway.usage_support import logged_request

pytestmark = pytest.mark.django_db


def test_a_filtered_request_with_a_nul_is_logged_and_takes_feedback(route_client) -> None:
    response = post_filter(route_client, openai_body("weather in Paris\u0000 today"), "limit=3")
    assert response.status_code == 200
    request_id = response["X-Toolrouter-Request-Id"]
    assert logged_request(request_id).query == "weather in Paris\ufffd today"
    feedback = route_client.post("/api/v1/feedback", {"request_id": request_id, "used_tools": ["get_weather"]},
                                 format="json")
    assert feedback.status_code in (200, 201), feedback.content
