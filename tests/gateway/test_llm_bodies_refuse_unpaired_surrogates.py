"""Half of a UTF-16 pair written as a JSON escape (\\ud800) is no text: the filter answers a 400
naming it, where it crashed re-encoding the body or hashing the tools (the proxy: see
test_proxy_checks_every_body_as_the_filter_does)."""
from __future__ import annotations

import json

import pytest

from tests.gateway.requests_shapes import openai_body, post_filter

pytestmark = pytest.mark.django_db


def with_lone_surrogate(body: dict) -> str:
    return json.dumps(body).replace("Get the current weather", "Get \\udfff weather")


def test_the_filter_answers_400(route_client) -> None:
    response = post_filter(route_client, with_lone_surrogate(openai_body("weather in Paris")))
    assert response.status_code == 400
    assert response.json()["error"] == "invalid_json" and "unpaired surrogate (U+DFFF)" in response.json()["message"]


def test_a_surrogate_pair_is_an_ordinary_character(route_client) -> None:
    raw = json.dumps(openai_body("weather in Paris \U0001F326"))  # ensure_ascii writes it as a pair of escapes
    assert "\\ud83c" in raw
    assert post_filter(route_client, raw).status_code == 200
