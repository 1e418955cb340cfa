"""`EMBEDDING_PROVIDER=openai` with README's defaults (text-embedding-3-small, 384) embeds: the
request names `dimensions`, so OpenAI answers 384 values instead of its native 1536, for the
catalog (the worker) and for a route's query (the web process) alike. Models that take no
`dimensions` (text-embedding-ada-002, an OpenAI-compatible server's models) are not sent it
unless EMBEDDING_SEND_DIMENSIONS says so."""
import uuid

import pytest
from django.core.management import call_command

from routing.query_embeddings import _embedders
from tests.support.openai_server import FakeOpenAI, use_as_provider
from tests.support.worker import celery_worker, wait_for
from toolcatalog import services
from toolcatalog.embeddings import EmbeddingProviderError, get_provider
from toolcatalog.models import EmbeddingStatus, Tool

README_MODEL = "text-embedding-3-small"


def embedding_requests(server: FakeOpenAI) -> list[dict]:
    return [request["body"] for request in server.requests if request["path"].endswith("/embeddings")]


def refreshed(tool: Tool) -> Tool:
    tool.refresh_from_db()
    return tool


@pytest.mark.django_db(transaction=True)
def test_the_worker_embeds_with_readmes_defaults(settings, fake_openai, monkeypatch) -> None:
    for name in ("EMBEDDING_MODEL", "EMBEDDING_DIMENSIONS", "EMBEDDING_SEND_DIMENSIONS"):
        monkeypatch.delenv(name, raising=False)  # the worker takes settings.py's defaults
    use_as_provider(settings, fake_openai, README_MODEL)
    worker_env = {"EMBEDDING_PROVIDER": "openai", "EMBEDDING_BASE_URL": fake_openai.base_url,
                  "EMBEDDING_API_KEY": "test-key", "EMBEDDING_MAX_RETRIES": "1",
                  "EMBEDDING_RETRY_BACKOFF_SECONDS": "0.2"}
    with celery_worker(worker_env):
        tool = services.save_validated(Tool(name="play_music", description="Play a song"))
        assert wait_for(lambda: refreshed(tool).embedding_status != EmbeddingStatus.PENDING, timeout=30)
    assert tool.embedding_status == EmbeddingStatus.READY, tool.embedding_error
    assert tool.embedding_model == f"openai:{README_MODEL}"
    assert len(tool.embedding) == 384
    assert {body.get("dimensions") for body in embedding_requests(fake_openai)} == {384}


@pytest.mark.django_db
@pytest.mark.usefixtures("demo_catalog")
def test_a_route_query_is_embedded_at_the_catalogs_size(settings, fake_openai, route_client) -> None:
    use_as_provider(settings, fake_openai, README_MODEL)
    _embedders.clear()
    try:
        call_command("reembed", stdout=open("/dev/null", "w"), stderr=open("/dev/null", "w"))
        query = f"play some jazz {uuid.uuid4().hex[:8]}"  # the query vectors' cache outlives a test run
        calls_before = len(embedding_requests(fake_openai))
        response = route_client.post("/api/v1/route", {"query": query, "strategy": "vector"}, format="json")
    finally:
        _embedders.clear()
    assert response.status_code == 200, response.content
    strategy = response.json()["strategy"]
    assert strategy["used"] == "vector" and strategy["fallback"] is False
    query_request = embedding_requests(fake_openai)[calls_before:]
    assert [body["input"] for body in query_request] == [[query]]
    assert query_request[0]["dimensions"] == 384


@pytest.mark.parametrize("model", ["text-embedding-ada-002", "fake-embed"])
def test_auto_sends_no_dimensions_to_models_that_do_not_take_them(settings, fake_openai, model) -> None:
    use_as_provider(settings, fake_openai, model)
    settings.EMBEDDING_DIMENSIONS = 1536 if model == "text-embedding-ada-002" else 384
    assert get_provider().embed(["play a song"]).shape == (1, settings.EMBEDDING_DIMENSIONS)
    assert "dimensions" not in embedding_requests(fake_openai)[-1]


def test_sending_dimensions_to_a_model_that_refuses_them_says_openais_reason(settings, fake_openai) -> None:
    use_as_provider(settings, fake_openai, "text-embedding-ada-002")
    settings.EMBEDDING_SEND_DIMENSIONS = "true"
    with pytest.raises(EmbeddingProviderError, match="does not support specifying dimensions"):
        get_provider().embed(["play a song"])


def test_an_unknown_send_dimensions_value_is_named(settings, fake_openai) -> None:
    use_as_provider(settings, fake_openai, README_MODEL)
    settings.EMBEDDING_SEND_DIMENSIONS = "sometimes"
    with pytest.raises(EmbeddingProviderError, match="EMBEDDING_SEND_DIMENSIONS must be one of"):
        get_provider().embed(["play a song"])
