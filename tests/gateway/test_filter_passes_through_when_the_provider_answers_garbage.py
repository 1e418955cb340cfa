"""A provider that answers 200 with unusable vectors (fewer than the texts, NaN) is an unavailable
provider to the filter: the body goes on unchanged with `X-Toolrouter-Passthrough:
embedding-unavailable`, never a 500, and no bad vector is cached: once the provider recovers, the
same tools and query are filtered by their vectors."""
import json
import uuid

import pytest

from tests.gateway.requests_shapes import FUNCTIONS, names, openai_body, openai_tools, post_filter
from tests.support.openai_server import FakeOpenAI, use_as_provider


@pytest.fixture
def provider(settings):
    with FakeOpenAI() as server:
        use_as_provider(settings, server, "fake-embed-garbage")
        yield server


def fresh_body() -> bytes:
    """The eight usual tools, worded so that no earlier run has their vectors (or the query's) cached."""
    run = uuid.uuid4().hex[:8]
    tools = openai_tools([(name, f"{description} ({run})") for name, description in FUNCTIONS])
    return json.dumps(openai_body(f"play a jazz song ({run})", tools=tools)).encode()


@pytest.mark.parametrize("fault", ["drop_first", "drop_last", "nan", "inf"])
def test_unusable_vectors_pass_the_body_through_and_are_not_kept(db, route_client, provider, fault) -> None:
    raw = fresh_body()
    provider.embeddings_fault = fault
    response = post_filter(route_client, raw, "strategy=vector&limit=1")
    assert response.status_code == 200, response.content
    assert response.content == raw
    assert response["X-Toolrouter-Passthrough"] == "embedding-unavailable"

    provider.embeddings_fault = None  # the provider recovers
    response = post_filter(route_client, raw, "strategy=vector&limit=1")
    assert response.status_code == 200 and "X-Toolrouter-Passthrough" not in response
    assert names(response.json()) == ["play_music"]
