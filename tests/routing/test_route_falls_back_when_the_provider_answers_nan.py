"""A provider that answers a query's vector with NaN or infinity is down as far as routing goes:
the semantic strategies answer from BM25 with `fallback: true`, and nothing non-finite is cached,
so once the provider answers properly the same query is ranked by its vector again."""
import uuid

import pytest
from django.core.management import call_command

from routing.query_embeddings import _embedders
from tests.support.openai_server import use_as_provider

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("demo_catalog")]


@pytest.fixture
def provider(settings, fake_openai):
    use_as_provider(settings, fake_openai, "fake-embed-nan")
    _embedders.clear()
    call_command("reembed", stdout=open("/dev/null", "w"), stderr=open("/dev/null", "w"))
    yield fake_openai
    _embedders.clear()


@pytest.mark.parametrize("fault", ["nan", "inf"])
def test_a_non_finite_query_vector_falls_back_to_bm25_and_is_not_kept(route_client, provider, fault) -> None:
    query = f"play some jazz {uuid.uuid4().hex[:8]}"  # the query vectors' cache outlives a test run
    provider.embeddings_fault = fault
    for strategy in ("hybrid", "vector"):
        response = route_client.post("/api/v1/route", {"query": query, "strategy": strategy}, format="json")
        assert response.status_code == 200, response.content
        body = response.json()
        assert body["strategy"]["used"] == "bm25" and body["strategy"]["fallback"] is True
        assert body["matches"][0]["name"] == "play_music"

    provider.embeddings_fault = None  # the provider recovers
    body = route_client.post("/api/v1/route", {"query": query, "strategy": "vector"}, format="json").json()
    assert body["strategy"]["used"] == "vector" and body["strategy"]["fallback"] is False
