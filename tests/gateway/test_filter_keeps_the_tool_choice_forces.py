"""A tool the request's tool_choice names stays among the filtered tools: without it the
provider refuses the request (OpenAI and Anthropic both answer 400)."""
from __future__ import annotations

import json

import pytest

from tests.gateway.requests_shapes import anthropic_body, names, openai_body, post_filter

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("body", [
    openai_body("what is the weather in Paris", tool_choice={"type": "function", "function": {"name": "translate_text"}}),
    anthropic_body("what is the weather in Paris", tool_choice={"type": "tool", "name": "translate_text"}),
])
def test_the_forced_tool_is_kept_beside_the_ranked_ones(route_client, body) -> None:
    response = post_filter(route_client, body, "limit=2")
    assert response.status_code == 200, response.content
    kept = names(json.loads(response.content))
    assert "translate_text" in kept and "get_weather" in kept


def test_auto_and_required_choices_force_nothing(route_client) -> None:
    body = openai_body("what is the weather in Paris", tool_choice="required")
    kept = names(json.loads(post_filter(route_client, body, "limit=1").content))
    assert kept == ["get_weather"]
