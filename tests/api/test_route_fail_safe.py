"""Fail-safe selection on the route endpoint: never zero tools, pinned tools always load,
select:NAME / select:/regex/ always honoured, and the adaptive mode's floor and cap."""
from __future__ import annotations

import json

import pytest

from api.models import ApiKey
from tests.support.catalog import api_client
from tests.support.worker import ARTIFACTS
from toolcatalog.models import Category, Tool, Toolset

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("demo_catalog")]
CASES: list[str] = []


@pytest.fixture(scope="module", autouse=True)
def save_cases():
    yield
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    (ARTIFACTS / "fail-safe-cases.txt").write_text("\n".join(CASES) + "\n")


def route(client, case: str, **body) -> dict:
    response = client.post("/api/v1/route", {"format": "names", **body}, format="json")
    assert response.status_code == 200, response.content
    answer = response.json()
    shown = {k: answer[k] for k in ("tools", "fail_safe", "explicit") if k in answer}
    CASES.append(f"{case}: {json.dumps(body)} -> {json.dumps(shown)}")
    return answer


def test_nothing_matched_gives_tool_search_and_the_core_tools(route_client) -> None:
    answer = route(route_client, "never zero", query="zzqx qqzx", strategy="bm25", include_core=False)
    assert answer["tools"] == ["ask_user_clarification", "get_current_time", "tool_search"]
    assert answer["fail_safe"]["added"] == ["tool_search", "ask_user_clarification", "get_current_time"]
    assert answer["fail_safe"]["reason"].startswith("no tool matched the query")
    assert answer["strategy"]["fallback"] is True


def test_a_bound_key_asking_outside_still_gets_the_search_tool() -> None:
    toolset = Toolset.objects.create(name="weather-only")
    toolset.categories.add(Category.objects.get(name="weather"))
    client = api_client(["route"], toolset=toolset, name="weather-agent")
    answer = route(client, "never zero, bound key", query="play some jazz", categories=["music"])
    assert answer["tools"] == ["tool_search"] and answer["matches"] == []


def test_a_requested_toolset_sends_its_own_pin_and_not_the_keys() -> None:
    toolset = Toolset.objects.create(name="with-pins")
    toolset.pinned_tools.add(Tool.objects.get(name="get_weather_alerts"))
    client = api_client(["route"], name="pinned-agent")
    ApiKey.objects.filter(name="pinned-agent").update(pinned_tools=["get_lyrics"])
    answer = route(client, "pinned (key and requested toolset)", query="send an email to my boss", limit=2,
                   toolset="with-pins", include_core=False)
    # The requested toolset holds only its pin; the key's own pin lies outside it, so it is not sent.
    assert answer["tools"] == ["get_weather_alerts"] and "fail_safe" not in answer


def test_pinned_tools_of_the_key_load_whatever_the_query(route_client) -> None:
    ApiKey.objects.filter(name="test-client").update(pinned_tools=["get_lyrics"])
    answer = route(route_client, "pinned (key)", query="send an email to my boss", limit=2, include_core=False,
                   explain=True)
    assert answer["tools"][0] == "get_lyrics" and answer["matches"][0]["via"] == "pinned"
    assert len(answer["tools"]) == 3  # the pinned tool, then the two ranked ones


def test_select_name_and_pattern_are_honoured(route_client) -> None:
    answer = route(route_client, "select:NAME", query="select:get_lyrics what is the weather", limit=2,
                   include_core=False)
    assert answer["tools"][0] == "get_lyrics" and answer["explicit"] == {"selected": ["get_lyrics"], "notes": []}
    assert any("weather" in name for name in answer["tools"][1:])
    answer = route(route_client, "select:/regex/", query="select:/^get_weather/", include_core=False)
    assert answer["tools"] == ["get_weather_alerts", "get_weather_forecast"]
    answer = route(route_client, "select: unknown and bad", query="select:no_such_tool select:/([/ play jazz",
                   limit=1, include_core=False)
    assert answer["tools"] == ["play_music"] and len(answer["explicit"]["notes"]) == 2


def test_adaptive_mode_sends_what_scores_near_the_best(route_client) -> None:
    common = {"query": "play some jazz", "mode": "adaptive", "strategy": "hybrid", "include_core": False, "limit": 8}
    default = route(route_client, "adaptive (default margin 0.15)", **common)
    alone = route(route_client, "adaptive (margin 0: floor)", **common, margin=0.0)
    capped = route(route_client, "adaptive (margin 1: cap = limit)", **common, margin=1.0, explain=True)
    CASES.append("  scores: " + ", ".join(f"{m['name']} {m['score']}" for m in capped["matches"]))
    assert alone["tools"] == ["play_music"]
    assert 1 <= len(default["tools"]) < len(capped["tools"]) == 8
    assert default["tools"] == capped["tools"][: len(default["tools"])]
