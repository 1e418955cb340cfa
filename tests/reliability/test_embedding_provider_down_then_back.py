"""The embedding provider (an OpenAI-compatible server) really stopped: catalog saves still
succeed at once, routes answer from BM25 with fallback true, and once the server is back the
embeddings catch up (the beat task's requeue, with a real worker). Nothing is lost."""
from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from routing.query_embeddings import _embedders
from tests.support.catalog import api_client
from tests.support.worker import celery_worker, wait_for
from toolcatalog import services
from toolcatalog.models import Category, EmbeddingStatus, HypotheticalQuery, Tool

from .faults import record_fault
from .restartable_openai import RestartableOpenAI

pytestmark = pytest.mark.django_db(transaction=True)
TOOLS = 12


@pytest.fixture
def provider(settings) -> Iterator[RestartableOpenAI]:
    server = RestartableOpenAI().start()
    settings.EMBEDDING_PROVIDER, settings.EMBEDDING_MODEL = "openai", "fake-embed"
    settings.EMBEDDING_BASE_URL, settings.EMBEDDING_API_KEY = server.base_url, "test-key"
    settings.ROUTE_EMBEDDING_TIMEOUT_SECONDS = 0.5
    _embedders.clear()  # the route's embedder (and its circuit breaker) for this provider
    try:
        yield server
    finally:
        server.stop()
        _embedders.clear()


def worker_env(server: RestartableOpenAI) -> dict[str, str]:
    return {"EMBEDDING_PROVIDER": "openai", "EMBEDDING_MODEL": "fake-embed", "EMBEDDING_BASE_URL": server.base_url,
            "EMBEDDING_API_KEY": "test-key", "EMBEDDING_MAX_RETRIES": "1", "EMBEDDING_RETRY_BACKOFF_SECONDS": "0.2",
            "EMBEDDING_TIMEOUT_SECONDS": "2"}


def embedding_states() -> dict[str, int]:
    rows = [*Tool.objects.values_list("embedding_status", flat=True),
            *Category.objects.values_list("embedding_status", flat=True),
            *HypotheticalQuery.objects.values_list("embedding_status", flat=True)]
    return {status: rows.count(status) for status in set(rows)}


def test_saves_succeed_while_the_provider_is_down_and_embeddings_catch_up(provider) -> None:
    curator = api_client(["catalog", "route"], name="curator-during-outage")
    with celery_worker(worker_env(provider)):
        provider.stop()
        save_seconds = []
        for i in range(TOOLS):
            started = time.perf_counter()
            response = curator.post("/api/v1/tools", {
                "name": f"outage_tool_{i}", "description": f"Play jazz record number {i} from the archive",
                "parameters": {"type": "object", "properties": {}}}, format="json")
            save_seconds.append(time.perf_counter() - started)
            assert response.status_code == 201, response.content
        assert wait_for(lambda: embedding_states().get(EmbeddingStatus.FAILED, 0) == TOOLS, timeout=60)

        routed = curator.post("/api/v1/route", {"query": "play jazz record", "strategy": "hybrid"}, format="json")
        assert routed.status_code == 200
        answer = routed.json()
        assert answer["strategy"]["fallback"] is True and answer["matches"]
        assert answer["latency_ms"] < 1500

        provider.start()  # same port, same base URL
        back_at = time.monotonic()
        services.requeue_stale_embeddings()  # what the beat task does every minute
        assert wait_for(lambda: embedding_states() == {EmbeddingStatus.READY: TOOLS}, timeout=60), embedding_states()
        caught_up = time.monotonic() - back_at
    assert Tool.objects.filter(name__startswith="outage_tool_").count() == TOOLS
    record_fault("Embedding provider stopped and restarted (real worker)",
                 f"catalog saves 201 (slowest {max(save_seconds) * 1000:.0f} ms); route 200 from BM25 with "
                 f"fallback true in {answer['latency_ms']:.0f} ms; embeddings marked failed, not the saves",
                 f"nothing: {TOOLS}/{TOOLS} tools saved and later embedded",
                 f"{caught_up:.1f} s after the provider was back (requeue by the beat task's service, then the worker)")
