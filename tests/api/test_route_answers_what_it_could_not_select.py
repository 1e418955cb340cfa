"""When a request selects nothing, or names what it cannot have, the route endpoint says so the
same way for every caller: the fail-safe comes with the core tools too, a select: term it could
not take has its note, and a name a bound key may not see reads like one that does not exist."""
from __future__ import annotations

import pytest

from tests.support.catalog import api_client
from toolcatalog.models import Category, Toolset

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("demo_catalog")]


def route(client, **body) -> dict:
    response = client.post("/api/v1/route", {"format": "names", **body}, format="json")
    assert response.status_code == 200, response.content
    return response.json()


@pytest.mark.parametrize("body", [
    {"query": "zzqx qqzx", "strategy": "bm25"},
    {"query": "select:no_such_tool"},
])
def test_core_tools_alone_are_not_a_selection(route_client, body) -> None:
    answer = route(route_client, **body)  # include_core is true by default
    assert answer["tools"] == ["ask_user_clarification", "get_current_time", "tool_search"]
    assert answer["fail_safe"]["added"][0] == "tool_search" and answer["strategy"]["fallback"] is True


def test_a_pattern_too_long_is_noted_and_left_out_of_the_query(route_client) -> None:
    answer = route(route_client, query=f"select:/{'a' * 201}/ play some jazz", include_core=False)
    assert answer["explicit"]["notes"] == ["select:/.../ ignored: a pattern may have at most 200 characters"]
    assert answer["tools"][0] == "play_music"


def test_a_hidden_name_reads_exactly_like_an_unknown_one() -> None:
    toolset = Toolset.objects.create(name="weather-only")
    toolset.categories.add(Category.objects.get(name="weather"))
    client = api_client(["route"], toolset=toolset, name="weather-agent")
    hidden = route(client, query="select:play_music")["explicit"]["notes"]
    unknown = route(client, query="select:no_such_tool")["explicit"]["notes"]
    assert hidden == ["select:play_music matched no tool"]
    assert unknown == ["select:no_such_tool matched no tool"]
