"""One name mapping everywhere: `files.read_file` is `files__read_file` for OpenAI and Anthropic
in exports, route answers and the filter, and every door that takes a name back (filter,
feedback, re-import) finds the same catalog tool. Sessions keep the catalog's own names."""
import json

import pytest

from tests.gateway.requests_shapes import post_filter
from tests.support.catalog import api_client
from toolcatalog import services
from toolcatalog.models import Tool

DOTTED = "files.read_file"
EXPORTED = "files__read_file"
CATALOG = {
    "format": "toolcatalog/v1",
    "categories": [],
    "tools": [
        {"name": DOTTED, "description": "Read a file from disk",
         # Only the catalog knows this example: the filter finds the tool by it only when it maps
         # the exported name back to the catalog's tool.
         "hypothetical_queries": ["slurp the document contents"]},
        {"name": "files.write_file", "description": "Write a file to disk"},
        {"name": "play_music", "description": "Play a song or playlist"},
    ],
}


@pytest.fixture
def client(db):
    services.import_catalog(CATALOG)
    return api_client(["route", "catalog"], name="every-door")


def exported_tools(client, fmt: str) -> list[dict]:
    response = client.get("/api/v1/catalog/export", {"format": fmt})
    assert response.status_code == 200
    return response.json()


def name_of(tool: dict) -> str:
    return tool["function"]["name"] if "function" in tool else tool["name"]


@pytest.mark.parametrize("fmt", ["openai", "anthropic"])
def test_export_and_route_answer_spell_the_name_the_same(client, fmt: str) -> None:
    exported = {name_of(t) for t in exported_tools(client, fmt)}
    assert EXPORTED in exported and DOTTED not in exported
    answer = client.post("/api/v1/route", {"query": "read a file from disk", "format": fmt, "strategy": "bm25",
                                           "limit": 1}, format="json").json()
    assert [name_of(t) for t in answer["tools"]] == [EXPORTED]
    assert answer["matches"][0]["name"] == DOTTED


@pytest.mark.parametrize("fmt", ["openai", "anthropic"])
def test_the_filter_finds_the_catalog_tool_behind_an_exported_name(client, fmt: str) -> None:
    tools = exported_tools(client, fmt)
    body = {"model": "m", "messages": [{"role": "user", "content": "slurp"}], "tools": tools}
    response = post_filter(client, body, "strategy=bm25&limit=1")
    assert response.status_code == 200, response.content
    assert [name_of(t) for t in json.loads(response.content)["tools"]] == [EXPORTED]


def test_feedback_and_sessions_map_the_routed_name_back(client) -> None:
    answer = client.post("/api/v1/route", {"query": "read a file from disk", "strategy": "bm25", "limit": 1,
                                           "session_id": "s-1"}, format="json").json()
    assert answer["session"]["active_tools"] == [DOTTED]
    used = name_of(answer["tools"][0])
    feedback = client.post("/api/v1/feedback", {"request_id": answer["request_id"], "used_tools": [used],
                                                "success": True}, format="json").json()
    assert feedback["offered_and_used"] == [DOTTED]
    assert feedback["missed"] == []


@pytest.mark.parametrize("fmt", ["openai", "anthropic"])
def test_re_importing_an_export_updates_the_same_tools(client, fmt: str) -> None:
    before = sorted(Tool.objects.values_list("name", flat=True))
    report = client.post("/api/v1/catalog/import", {"document": exported_tools(client, fmt)}, format="json").json()
    assert report["counts"]["rejected"] == 0, report["rejected"]
    assert report["created"] == []
    assert DOTTED in report["unchanged"] + report["updated"]
    assert sorted(Tool.objects.values_list("name", flat=True)) == before
