import pytest

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("demo_catalog")]


def test_route_answers_in_the_spec_shape(route_client) -> None:
    response = route_client.post("/api/v1/route", {"query": "play some jazz", "limit": 3}, format="json")
    assert response.status_code == 200, response.content
    body = response.json()
    assert set(body) >= {"tools", "matches", "categories", "guidance", "instruction", "strategy", "tokens",
                         "request_id", "latency_ms"}
    assert body["matches"][0]["name"] == "play_music"
    assert body["tools"][0]["type"] == "function"
    assert "music" in body["categories"]
    assert body["tokens"]["saved"] == body["tokens"]["catalog"] - body["tokens"]["selected"] > 0
    assert set(body["strategy"]) >= {"used", "confidence", "fallback"}


def test_messages_give_the_query_from_the_last_user_message(route_client) -> None:
    messages = [
        {"role": "user", "content": "what's the weather in Paris"},
        {"role": "assistant", "content": "Sunny."},
        {"role": "user", "content": [{"type": "text", "text": "now play some jazz"}]},
    ]
    body = route_client.post("/api/v1/route", {"messages": messages, "limit": 3}, format="json").json()
    assert body["matches"][0]["name"] == "play_music"


@pytest.mark.parametrize("fmt,check", [
    ("openai", lambda t: t["type"] == "function" and "parameters" in t["function"]),
    ("anthropic", lambda t: "input_schema" in t and "name" in t),
    ("mcp", lambda t: "inputSchema" in t and "name" in t),
    ("names", lambda t: isinstance(t, str)),
])
def test_tool_definitions_in_each_format(route_client, fmt, check) -> None:
    body = route_client.post("/api/v1/route", {"query": "read a file", "format": fmt}, format="json").json()
    assert body["tools"] and all(check(t) for t in body["tools"])


def test_dotted_names_are_mapped_for_openai_and_kept_for_mcp(route_client) -> None:
    openai = route_client.post("/api/v1/route", {"query": "read the contents of a file", "format": "openai"},
                               format="json").json()
    mcp = route_client.post("/api/v1/route", {"query": "read the contents of a file", "format": "mcp"}, format="json").json()
    assert "files.read_file" in [m["name"] for m in openai["matches"]]
    openai_names = [t["function"]["name"] for t in openai["tools"]]
    assert all("." not in n for n in openai_names)
    assert "files.read_file" in [t["name"] for t in mcp["tools"]]
