"""The hierarchical chain's LLM step, served by a real local chat-completions server."""
import json

import pytest

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("demo_catalog")]


def choose_music(body: dict) -> dict:
    tool = body["tools"][0]["function"]
    assert tool["name"] == "select_tool_category"
    assert body["tool_choice"] == "required"
    return {"name": "select_tool_category", "arguments": {"categories": ["music"]}}


@pytest.fixture
def llm(settings, fake_openai):
    fake_openai.choose_tool_call = choose_music
    settings.CATEGORY_LLM_BASE_URL = fake_openai.base_url
    settings.CATEGORY_LLM_MODEL = "fake-chat"
    settings.CATEGORY_LLM_API_KEY = "test"
    settings.CATEGORY_LLM_TIMEOUT_SECONDS = 0.5
    return fake_openai


def hierarchical(client, query: str) -> dict:
    response = client.post("/api/v1/route", {"query": query, "strategy": "hierarchical", "limit": 5,
                                             "include_core": False}, format="json")
    assert response.status_code == 200, response.content
    return response.json()


def test_llm_choice_restricts_tools_to_its_category(route_client, llm) -> None:
    body = hierarchical(route_client, "something to listen to while I cook")
    assert body["strategy"]["used"].startswith("hierarchical")
    assert body["categories"] == ["music"]
    assert body["strategy"]["steps"][0] == {"step": "llm", "status": "ok", "categories": ["music"]}
    assert len(llm.requests) == 1 and llm.requests[0]["body"]["max_tokens"] <= 200


def test_llm_failure_falls_to_the_embedding_step(route_client, llm) -> None:
    llm.fail_with = 500
    body = hierarchical(route_client, "play some jazz")
    steps = body["strategy"]["steps"]
    assert steps[0]["step"] == "llm" and steps[0]["status"] == "error" and "500" in steps[0]["detail"]
    assert any(s["step"] == "embedding" and s["status"] == "ok" for s in steps)
    assert body["matches"][0]["name"] == "play_music"


def test_llm_timeout_falls_to_the_embedding_step(route_client, llm) -> None:
    llm.delay = 2.0
    body = hierarchical(route_client, "play some jazz")
    steps = body["strategy"]["steps"]
    assert steps[0]["step"] == "llm" and steps[0]["status"] == "error"
    assert "timed out" in json.dumps(steps[0]).lower() or "timeout" in json.dumps(steps[0]).lower()
    assert body["latency_ms"] < 1500
    assert body["matches"][0]["name"] == "play_music"


def test_without_an_llm_the_chain_starts_with_embeddings(route_client) -> None:
    body = hierarchical(route_client, "play some jazz")
    assert body["strategy"]["steps"][0]["status"] == "skipped"
    assert body["matches"][0]["name"] == "play_music"
