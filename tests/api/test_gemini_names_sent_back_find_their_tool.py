"""A tool's Gemini name (`_1password__get_item` for `1password.get_item`, a letter first) sent back finds
the tool at every door that takes names back, as its OpenAI name does: feedback, and `select:` on route
and tool-search. A catalog tool of that very name is still itself."""
import pytest

from tests.support.catalog import api_client
from toolcatalog import services

pytestmark = pytest.mark.django_db
GEMINI_NAME = "_1password__get_item"
TOOLS = [
    {"name": "1password.get_item", "description": "Get an item from the password vault"},
    {"name": "files.read_file", "description": "Read a file from disk"},
    {"name": "play_music", "description": "Play a song or playlist"},
]


def client_over(tools: list[dict]):
    services.import_catalog({"format": "toolcatalog/v1", "categories": [], "tools": tools})
    return api_client(["route"], name="gemini-names")


def routed(client, query: str, fmt: str = "gemini") -> dict:
    response = client.post("/api/v1/route", {"query": query, "format": fmt, "strategy": "bm25", "limit": 1},
                           format="json")
    assert response.status_code == 200, response.content
    return response.json()


def feedback(client, request_id: str, used: list[str], missing: list[str] | None = None) -> dict:
    response = client.post("/api/v1/feedback", {"request_id": request_id, "used_tools": used,
                                                "missing_tools": missing or [], "success": True}, format="json")
    assert response.status_code == 200, response.content
    return response.json()


def test_feedback_records_the_gemini_name_as_the_tool_it_was_offered_as(db) -> None:
    client = client_over(TOOLS)
    answer = routed(client, "get an item from the password vault")
    assert [t["name"] for t in answer["tools"]] == [GEMINI_NAME]
    body = feedback(client, answer["request_id"], [GEMINI_NAME])
    assert body["offered_and_used"] == ["1password.get_item"] and body["missed"] == []


def test_a_gemini_name_reported_missing_is_the_catalog_tool(db) -> None:
    client = client_over(TOOLS)
    answer = routed(client, "play a song")
    assert feedback(client, answer["request_id"], [], [GEMINI_NAME])["missed"] == ["1password.get_item"]


@pytest.mark.parametrize("path", ["/api/v1/route", "/api/v1/tool-search"])
def test_select_takes_the_gemini_name(db, path: str) -> None:
    client = client_over(TOOLS)
    response = client.post(path, {"query": f"select:{GEMINI_NAME}"}, format="json")
    assert response.status_code == 200, response.content
    names = [m["name"] for m in response.json()["matches"]] if path.endswith("route") else \
        [t["name"] for t in response.json()["tools"]]
    assert names == ["1password.get_item"]


def test_a_catalog_tool_of_that_very_name_is_itself(db) -> None:
    client = client_over([*TOOLS, {"name": GEMINI_NAME, "description": "A tool that is named so"}])
    answer = routed(client, "get an item from the password vault", fmt="openai")
    assert [m["name"] for m in answer["matches"]] == ["1password.get_item"]
    body = feedback(client, answer["request_id"], [GEMINI_NAME])
    assert body["offered_and_used"] == [] and body["missed"] == [GEMINI_NAME]
    selected = routed(client, f"select:{GEMINI_NAME}")
    assert [m["name"] for m in selected["matches"]] == [GEMINI_NAME]
