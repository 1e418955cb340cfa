"""The filter embeds at most FILTER_MAX_NEW_EMBEDDINGS unseen tool texts on the request's thread.
Past that budget it answers at once, ranked by BM25, says so (X-Toolrouter-Fallback), and a worker
embeds the rest for the next request, which is ranked with vectors. More than FILTER_MAX_TOOLS tools
is a 413 naming the limit."""
from __future__ import annotations

import json
import time
import uuid

import pytest

from tests.gateway.requests_shapes import FUNCTIONS, openai_body, openai_tools, post_filter
from tests.support.catalog import api_client

pytestmark = pytest.mark.django_db(transaction=True)


def unseen_tools(count: int) -> list[dict]:
    run = uuid.uuid4().hex[:8]
    return openai_tools([(f"{name}_{i}", f"{description} ({run} {i})")
                         for i in range(count // len(FUNCTIONS) + 1) for name, description in FUNCTIONS][:count])


def test_past_the_budget_the_answer_is_bm25_now_and_vectors_next_time(local_worker, settings) -> None:
    settings.FILTER_MAX_NEW_EMBEDDINGS = 4
    client = api_client(["route"], name="filterer")
    body = openai_body("send an email to my boss", tools=unseen_tools(24))
    started = time.perf_counter()
    first = post_filter(client, body, "limit=3")
    assert time.perf_counter() - started < 10
    assert first.status_code == 200
    assert first["X-Toolrouter-Fallback"] == "embedding-budget"
    assert first["X-Toolrouter-Embeddings-Deferred"] == "24"
    assert first["X-Toolrouter-Strategy"] == "bm25"
    assert json.loads(first.content)["tools"][0]["function"]["name"].startswith("send_email")
    deadline = time.monotonic() + 120
    while True:
        later = post_filter(client, body, "limit=3")
        if "X-Toolrouter-Fallback" not in later or time.monotonic() > deadline:
            break
        time.sleep(1)
    assert later.status_code == 200 and "X-Toolrouter-Fallback" not in later
    assert later["X-Toolrouter-Strategy"] == "hybrid"


def test_within_the_budget_the_tools_are_embedded_inline(db, settings) -> None:
    settings.FILTER_MAX_NEW_EMBEDDINGS = 64
    response = post_filter(api_client(["route"], name="filterer"), openai_body("book a flight", tools=unseen_tools(8)))
    assert response.status_code == 200 and "X-Toolrouter-Fallback" not in response
    assert response["X-Toolrouter-Strategy"] == "hybrid"


def test_more_tools_than_the_limit_is_a_413(db, settings) -> None:
    settings.FILTER_MAX_TOOLS = 10
    client = api_client(["route"], name="filterer")
    response = post_filter(client, openai_body("weather", tools=unseen_tools(11)))
    assert response.status_code == 413
    assert response.json()["error"] == "too_many_tools"
    assert response.json()["details"] == {"limit": "FILTER_MAX_TOOLS", "allowed": 10}
    assert post_filter(client, openai_body("weather", tools=unseen_tools(10)), "strategy=bm25").status_code == 200


def test_a_jsonpath_longer_than_the_limit_is_a_400(db) -> None:
    client = api_client(["route"], name="filterer")
    response = post_filter(client, openai_body("weather"), "query_path=$." + "a" * 600)
    assert response.status_code == 400
    assert response.json()["details"]["limit"] == "FILTER_MAX_JSONPATH_CHARS"
