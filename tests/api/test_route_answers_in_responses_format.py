"""`format: responses`: the tools an OpenAI Responses API request takes (flat function tools), named
as the Chat Completions format names them, and the tool_search meta-tool in the same form."""
import pytest

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("demo_catalog")]
QUERY = "read the contents of a file"


def route(route_client, fmt: str) -> dict:
    response = route_client.post("/api/v1/route", {"query": QUERY, "format": fmt, "limit": 5}, format="json")
    assert response.status_code == 200, response.content
    return response.json()


def test_responses_tools_are_the_chat_tools_flattened(route_client) -> None:
    chat, flat = route(route_client, "openai")["tools"], route(route_client, "responses")["tools"]
    assert flat == [{"type": "function", **tool["function"]} for tool in chat]
    names = [tool["name"] for tool in flat]
    assert "files__read_file" in names and all("." not in name for name in names)


def test_the_meta_tool_definition_in_responses_form(route_client) -> None:
    body = route_client.get("/api/v1/tool-search/definition", {"format": "responses"}).json()
    chat = route_client.get("/api/v1/tool-search/definition", {"format": "openai"}).json()
    assert body["tool"] == {"type": "function", **chat["tool"]["function"]}
    assert body["format"] == "responses" and "tool_search" in body["system_prompt"]


def test_an_unknown_definition_format_names_the_allowed_ones(route_client) -> None:
    response = route_client.get("/api/v1/tool-search/definition", {"format": "mcp"})
    assert response.status_code == 400
    assert response.json()["details"]["allowed"] == ["openai", "responses", "anthropic", "gemini", "bedrock"]
