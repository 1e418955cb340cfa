"""The same tools on every turn are embedded once: a second request costs no provider call."""
import json
import uuid

import pytest

from gateway import filtering as filter_gateway
from shared.redis_client import get_redis
from tests.gateway.requests_shapes import FUNCTIONS, openai_body, openai_tools, post_filter
from tests.support.openai_server import FakeOpenAI, use_as_provider


@pytest.fixture
def fake_embeddings(settings):
    with FakeOpenAI() as server:
        use_as_provider(settings, server, "fake-embed-cache")
        yield server


def fresh_tools() -> list[dict]:
    """Fifty tools whose texts no earlier run has cached."""
    run = uuid.uuid4().hex[:8]
    functions = [(f"{name}_{i}", f"{description} ({run} variant {i})") for i in range(7) for name, description in FUNCTIONS]
    return openai_tools(functions[:50])


def embedded_texts(server: FakeOpenAI) -> list[str]:
    return [text for r in server.requests if r["path"].endswith("/embeddings") for text in r["body"]["input"]]


def fresh_query(text: str) -> str:
    """Queries are cached too (by the route's query embedder), so each run asks its own."""
    return f"{text} #{uuid.uuid4().hex[:6]}"


def test_second_request_calls_the_provider_for_nothing(db, route_client, fake_embeddings) -> None:
    tools = fresh_tools()
    query = fresh_query("weather in Madrid")
    first = post_filter(route_client, openai_body(query, tools=tools))
    assert first.status_code == 200 and first["X-Toolrouter-Tools-Before"] == "50"
    assert len(embedded_texts(fake_embeddings)) == 51  # 50 tools in one batch + the query
    calls = len(fake_embeddings.requests)
    second = post_filter(route_client, openai_body(query, tools=tools))
    assert second.content == first.content
    assert len(fake_embeddings.requests) == calls


def test_a_new_turn_embeds_only_its_query(db, route_client, fake_embeddings) -> None:
    tools = fresh_tools()
    post_filter(route_client, openai_body("weather in Madrid", tools=tools))
    before = len(embedded_texts(fake_embeddings))
    query = fresh_query("now email the forecast to Ana")
    post_filter(route_client, openai_body(query, tools=tools))
    assert embedded_texts(fake_embeddings)[before:] == [query]


def test_vectors_are_shared_through_redis(db, route_client, fake_embeddings) -> None:
    tools = fresh_tools()
    post_filter(route_client, openai_body("book a flight", tools=tools))
    keys = get_redis().keys("toolrouter:temb:*")
    assert len(keys) >= 50
    filter_gateway.clear_process_caches()  # as another web process would start: only Redis is warm
    calls = len(fake_embeddings.requests)
    response = post_filter(route_client, openai_body("book a flight", tools=tools))
    assert response.status_code == 200 and len(fake_embeddings.requests) == calls


def test_one_changed_tool_is_the_only_one_embedded(db, route_client, fake_embeddings) -> None:
    tools = fresh_tools()
    post_filter(route_client, openai_body("play a song", tools=tools))
    before = len(embedded_texts(fake_embeddings))
    tools[3] = json.loads(json.dumps(tools[3]))
    tools[3]["function"]["description"] += " (now with lyrics)"
    post_filter(route_client, openai_body("play a song", tools=tools))
    new = embedded_texts(fake_embeddings)[before:]
    assert len(new) == 1 and "now with lyrics" in new[0]
