"""The MCP door through the official SDK client, against a real gunicorn process: initialise,
list, search, and a key bound to a toolset never sees (nor calls) a tool outside it."""
from __future__ import annotations

import json
import re

import pytest

from api.models import ApiKey
from api.services import create_api_key
from tests.support.mcp_client import list_names, refused, run_session, search
from tests.support.worker import ARTIFACTS
from toolcatalog.models import Category, Tool, Toolset

pytestmark = pytest.mark.django_db(transaction=True)


def save_transcript(name: str, transcript: list[str]) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    (ARTIFACTS / f"mcp-transcript-{name}.txt").write_text("\n".join(transcript) + "\n")
    print("\n".join(transcript))


def test_initialise_list_and_search(web) -> None:
    api_key, key = create_api_key("mcp-agent")
    ApiKey.objects.filter(pk=api_key.pk).update(mcp_core_tools=True)

    async def steps(session, transcript):
        names = await list_names(session, transcript)
        found = await search(session, transcript, "play some jazz", limit=3)
        picked = await search(session, transcript, "select:get_lyrics and find an image")
        await session.send_ping()
        transcript.append("ping -> {}")
        return names, found, picked

    (names, found, picked), transcript = run_session(web.url("/mcp"), key, steps)
    save_transcript("unrestricted", transcript)
    assert transcript[0].startswith("initialize -> protocol 2025-11-25, server toolrouter")
    assert names == ["tool_search", "ask_user_clarification", "get_current_time"]  # the core tools, by key setting
    ranked = [t for t in found["tools"] if t["_meta"]["toolrouter/category"] != "general"]
    assert ranked[0]["name"] == "play_music" and len(ranked) == 3
    assert set(ranked[0]) >= {"name", "description", "inputSchema", "_meta"}  # MCP's form
    assert ranked[0]["inputSchema"] == Tool.objects.get(name="play_music").parameters
    assert "music" in found["workflowGuidance"].lower()
    assert picked["tools"][0]["name"] == "get_lyrics"  # select: is honoured first
    assert any(t["_meta"]["toolrouter/category"] == "images" for t in picked["tools"])


def test_a_bound_key_never_sees_an_outside_tool(web) -> None:
    toolset = Toolset.objects.create(name="weather-only")
    toolset.categories.add(Category.objects.get(name="weather"))
    api_key, key = create_api_key("weather-mcp-agent", ["route"], toolset)
    ApiKey.objects.filter(pk=api_key.pk).update(mcp_core_tools=True)
    outside = set(Tool.objects.exclude(category__name="weather").values_list("name", flat=True))

    async def steps(session, transcript):
        names = await list_names(session, transcript)
        answers = [await search(session, transcript, q, limit=10)
                   for q in ("play some jazz", "send an email to my boss", "select:play_music", "select:/.*/",
                             "select:no_such_tool", "will it rain tomorrow")]
        refusals = [await refused(session, transcript, n) for n in ("play_music", "music.play_music", "no_such_tool")]
        return names, answers, refusals

    (names, answers, refusals), transcript = run_session(web.url("/mcp"), key, steps)
    save_transcript("bound", transcript)
    assert names == ["tool_search"]  # its toolset has no core tool
    # An outside name the caller typed reads exactly like one that does not exist...
    notes = [answer.pop("explicit")["notes"] for answer in (answers[2], answers[4])]
    assert notes == [["select:play_music matched no tool"], ["select:no_such_tool matched no tool"]]
    # ... and nothing else of the answers names an outside tool.
    text = json.dumps([names, answers])
    assert not {n for n in outside if re.search(rf"(?<![\w.-]){re.escape(n)}(?![\w.-])", text)}
    assert answers[-1]["tools"][0]["name"] in {"get_weather_forecast", "get_current_weather", "get_weather_alerts"}
    assert {t["name"] for t in answers[3]["tools"]} == set(Tool.objects.filter(category__name="weather")
                                                          .values_list("name", flat=True))
    # An outside tool is refused exactly like a tool that does not exist.
    assert len({(e.error.code, e.error.message.split(":")[0]) for e in refusals}) == 1
    assert refusals[0].error.code == -32602


def test_namespaced_names(web) -> None:
    api_key, key = create_api_key("namespaced-agent")
    ApiKey.objects.filter(pk=api_key.pk).update(mcp_core_tools=True, mcp_namespaced_names=True)

    async def steps(session, transcript):
        names = await list_names(session, transcript)
        found = await search(session, transcript, "select:music.get_lyrics play some jazz", limit=2)
        called = await session.call_tool("general.get_current_time", {})
        return names, found, called

    (names, found, called), _ = run_session(web.url("/mcp"), key, steps)
    assert names == ["tool_search", "general.ask_user_clarification", "general.get_current_time"]
    assert [t["name"] for t in found["tools"]][:2] == ["music.get_lyrics", "music.play_music"]
    assert called.is_error and "does not run it" in called.content[0].text
