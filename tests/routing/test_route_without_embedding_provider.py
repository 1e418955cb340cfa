"""With the embedding provider down, routes answer from BM25 and say so."""
import pytest

from routing.query_embeddings import _embedders
from tests.support.openai_server import use_as_provider

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("demo_catalog")]


@pytest.fixture
def provider_down(settings, fake_openai):
    """The openai provider pointed at a real server that answers 500 to everything."""
    from django.core.management import call_command

    use_as_provider(settings, fake_openai)
    settings.ROUTE_EMBEDDING_FAILURES_TO_OPEN = 2
    _embedders.clear()
    call_command("reembed", stdout=open("/dev/null", "w"), stderr=open("/dev/null", "w"))
    fake_openai.fail_with = 500
    fake_openai.requests.clear()  # count only what routing sends from here on
    yield fake_openai
    _embedders.clear()


def test_semantic_strategies_fall_back_to_bm25(route_client, provider_down) -> None:
    for strategy in ("vector", "hybrid"):
        body = route_client.post("/api/v1/route", {"query": "play some jazz", "strategy": strategy},
                                 format="json").json()
        assert body["strategy"]["used"] == "bm25" and body["strategy"]["fallback"] is True
        assert body["matches"][0]["name"] == "play_music"


def test_the_circuit_opens_and_the_provider_is_not_hammered(route_client, provider_down) -> None:
    for i in range(6):
        route_client.post("/api/v1/route", {"query": f"music number {i}", "strategy": "vector"}, format="json")
    embedding_calls = [r for r in provider_down.requests if r["path"].endswith("/embeddings")]
    assert len(embedding_calls) == 2  # the breaker opened after two failures


def test_a_slow_provider_is_cut_off_by_the_timeout(route_client, provider_down, settings) -> None:
    provider_down.fail_with = None
    provider_down.delay = 3.0
    settings.ROUTE_EMBEDDING_TIMEOUT_SECONDS = 0.3
    body = route_client.post("/api/v1/route", {"query": "jazz please", "strategy": "vector"}, format="json").json()
    assert body["strategy"]["fallback"] is True
    assert body["latency_ms"] < 1500
