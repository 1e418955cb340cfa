"""A session forgets a tool once the caller may no longer see it: removed from the key's toolset,
disabled, or deleted. The next route's `session.active_tools` no longer lists it."""
from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from tests.support.catalog import api_client
from toolcatalog.models import Tool, Toolset

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("demo_catalog")]


def route(client: APIClient, query: str) -> dict:
    response = client.post("/api/v1/route", {"query": query, "session_id": "s-1", "strategy": "hybrid", "limit": 3},
                           format="json")
    assert response.status_code == 200, response.content
    return response.json()


def test_a_tool_removed_from_the_toolset_leaves_the_session() -> None:
    toolset = Toolset.objects.create(name="mixed")
    names = ["get_current_weather", "get_weather_forecast", "play_music", "search_music"]
    toolset.tools.add(*Tool.objects.filter(name__in=names))
    client = api_client(["route"], toolset=toolset, name="bound")
    active = route(client, "play some jazz")["session"]["active_tools"]
    active += route(client, "will it rain tomorrow")["session"]["active_tools"]
    assert "play_music" in active and "get_current_weather" in active
    toolset.tools.remove(Tool.objects.get(name="play_music"))
    session = route(client, "will it rain tomorrow")["session"]
    assert "play_music" not in session["active_tools"] and "get_current_weather" in session["active_tools"]
    assert "play_music" not in route(client, "weather in Rome")["session"]["active_tools"]


def test_a_disabled_tool_leaves_every_session() -> None:
    client = api_client(["route"], name="unbound")
    assert "play_music" in route(client, "play some jazz")["session"]["active_tools"]
    tool = Tool.objects.get(name="play_music")
    tool.enabled = False
    tool.save()  # a save records what it changed; web processes reload that tool (routing/live_index.py)
    assert "play_music" not in route(client, "will it rain tomorrow")["session"]["active_tools"]
