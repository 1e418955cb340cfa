import pytest

from toolcatalog.models import Tool

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("demo_catalog")]


def test_tool_search_answers_as_the_meta_tool_expects(route_client) -> None:
    response = route_client.post("/api/v1/tool-search", {"query": "find an image", "limit": 3}, format="json")
    assert response.status_code == 200, response.content
    body = response.json()
    assert set(body) >= {"tools", "workflowGuidance", "instruction"}
    assert len([t for t in body["tools"] if not Tool.objects.get(name=t["name"]).core]) <= 3
    first = body["tools"][0]
    assert set(first) == {"name", "description", "hint"}
    assert first["description"] == Tool.objects.get(name=first["name"]).description
    assert "image" in body["workflowGuidance"].lower()


def test_tool_search_rejects_unknown_fields(route_client) -> None:
    response = route_client.post("/api/v1/tool-search", {"query": "x", "strategy": "bm25"}, format="json")
    assert response.status_code == 400 and "strategy" in response.json()["details"]


@pytest.mark.parametrize("fmt,key", [("openai", "function"), ("anthropic", "input_schema")])
def test_definition_in_both_formats(route_client, fmt, key) -> None:
    body = route_client.get("/api/v1/tool-search/definition", {"format": fmt}).json()
    assert key in body["tool"]
    assert "tool_search" in body["system_prompt"]


def test_definition_rejects_other_formats(route_client) -> None:
    response = route_client.get("/api/v1/tool-search/definition", {"format": "mcp"})
    assert response.status_code == 400 and response.json()["error"] == "invalid_request"
