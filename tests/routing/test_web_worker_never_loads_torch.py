"""A gunicorn web worker embeds queries with ONNX Runtime and never loads torch, even after
semantic routes, a batch of sub-queries and the filter gateway; checked on the running worker
(the shared libraries mapped into it), with no endpoint for it."""
from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.conf import settings

from api.services import create_api_key
from routing.query_embeddings import query_embedder
from tests.reliability.webprocess import WebProcess, call
from tests.support.catalog import load_demo_catalog
from tests.support.worker import worker_database_url
from toolcatalog.embeddings import get_provider

pytestmark = pytest.mark.django_db(transaction=True)
QUERIES = ("play some relaxing jazz in the kitchen", "what will the weather be like in Lisbon on Sunday",
           "turn this recipe into a shopping list", "how many hours did I log on the redmine project last week")


@pytest.fixture
def web() -> Iterator[WebProcess]:
    load_demo_catalog()
    process = WebProcess({"DATABASE_URL": worker_database_url(), "REDIS_URL": settings.REDIS_URL,
                          "EMBEDDING_THREADS": "1"}, "no-torch")
    try:
        yield process
    finally:
        process.stop()


def mapped_libraries(pid: int) -> str:
    return Path(f"/proc/{pid}/maps").read_text()


def test_semantic_routes_and_the_filter_run_without_torch(web: WebProcess) -> None:
    _, key = create_api_key("no-torch", ["route"])
    token = uuid.uuid4().hex[:8]  # texts no earlier run has left in the query-vector cache (Redis)
    for query in QUERIES:
        answer = call(web.url("/api/v1/route"), key, {"query": f"{query} {token}", "strategy": "hybrid", "limit": 3})
        assert answer.status == 200, answer.text
        strategy = answer.json()["strategy"]
        assert strategy["used"] == "hybrid" and not strategy["fallback"], strategy  # the query was embedded
    steps = call(web.url("/api/v1/route"), key, {"query": "play some jazz, and then tell me the weather in Oslo",
                                                 "strategy": "hybrid"})
    assert steps.status == 200
    tools = [{"type": "function", "function": {"name": n, "description": d, "parameters": {"type": "object"}}}
             for n, d in (("play_music", "Play a song"), ("get_current_weather", "Current weather for a city"))]
    filtered = call(web.url("/api/v1/filter"), key,
                    {"model": "m", "messages": [{"role": "user", "content": "is it raining?"}], "tools": tools})
    assert filtered.status == 200, filtered.text

    (pid,) = web.worker_pids
    libraries = mapped_libraries(pid)
    assert "onnxruntime" in libraries  # the model did run in this worker...
    assert "libtorch" not in libraries and "/torch/" not in libraries  # ...and torch never came in


def test_a_batch_of_sub_queries_is_embedded_in_one_model_run() -> None:
    provider = get_provider()
    embedder = query_embedder(provider)
    encoder = provider.encoder(provider.query_variant)
    runs = []
    session_run = encoder.session.run
    encoder.session.run = lambda *args, **kwargs: runs.append(1) or session_run(*args, **kwargs)
    try:
        token = uuid.uuid4().hex[:8]  # texts no earlier run has left in the cache
        texts = [f"book a table for two {token}", f"and then call a taxi {token}", f"send the receipt to Ann {token}",
                 f"book a table for two {token}"]
        vectors = embedder.embed_many(texts)
    finally:
        del encoder.session.run
    assert vectors.shape == (4, provider.dimensions) and len(runs) == 1
    assert (vectors[0] == vectors[3]).all()
    again = embedder.embed_many(texts[1:3])  # from the cache now: no model run
    assert len(runs) == 1 and (again == vectors[1:3]).all()
    assert (embedder.embed(texts[2]) == vectors[2]).all()
