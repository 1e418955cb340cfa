"""An OpenAI-compatible provider that answers 200 with something unusable (a vector too few, NaN,
half a JSON document, an HTML page, vectors of different lengths) fails the embedding as a down
provider does: the worker retries with backoff, then leaves the rows `failed` with an error that
says what was wrong; no row is `ready` without its own vector, and once the provider answers
properly again every tool gets the vector of its own text."""
from collections.abc import Iterator

import numpy as np
import pytest
from django.db import transaction

from engine import tool_embedding_text
from tests.support.openai_server import FakeOpenAI, provider_settings, use_as_provider, word_vector
from tests.support.worker import celery_worker, wait_for
from toolcatalog import services
from toolcatalog.models import EmbeddingStatus, Tool

pytestmark = pytest.mark.django_db(transaction=True)

MODEL = "fake-embed-garbage"


@pytest.fixture(scope="module")
def provider(django_db_setup, django_db_blocker) -> Iterator[FakeOpenAI]:
    """One misbehaving server and one real worker for the module (each test sets the fault)."""
    with FakeOpenAI() as server, django_db_blocker.unblock(), celery_worker({
        **provider_settings(server, MODEL), "EMBEDDING_MAX_RETRIES": "1", "EMBEDDING_RETRY_BACKOFF_SECONDS": "0.2",
    }):
        yield server


@pytest.fixture(autouse=True)
def same_provider_here(settings, provider) -> None:
    use_as_provider(settings, provider, MODEL)
    provider.embeddings_fault = None


def save_three_tools() -> list[Tool]:
    """Three tools saved in one transaction: the worker embeds them in one batch (one provider call)."""
    with transaction.atomic():
        return [services.save_validated(Tool(name=name, description=description)) for name, description in (
            ("get_weather", "Get the weather forecast for a city"),
            ("send_email", "Send an email message to a recipient"),
            ("play_music", "Play a song, album or playlist"),
        )]


def statuses() -> set[str]:
    return set(Tool.objects.values_list("embedding_status", flat=True))


@pytest.mark.parametrize(("fault", "said"), [
    ("drop_first", "returned 2 vectors for 3 texts"),
    ("drop_last", "returned 2 vectors for 3 texts"),
    ("nan", "NaN"),
    ("inf", "infinite"),
    ("truncated", "not JSON"),
    ("html", "not JSON"),
    ("ragged", "different lengths"),
])
def test_an_unusable_answer_fails_the_embedding_with_what_was_wrong(provider, fault, said) -> None:
    provider.embeddings_fault = fault
    save_three_tools()
    assert wait_for(lambda: statuses() == {EmbeddingStatus.FAILED}, timeout=30), \
        list(Tool.objects.values_list("name", "embedding_status", "embedding_error"))
    assert len([r for r in provider.requests if r["path"].endswith("/embeddings")]) >= 2  # a try and a retry
    for tool in Tool.objects.all():
        assert said in tool.embedding_error, tool.embedding_error
        assert tool.embedding is None and tool.embedding_text_hash == ""

    provider.embeddings_fault = None
    assert services.requeue_stale_embeddings() == 3
    assert wait_for(lambda: statuses() == {EmbeddingStatus.READY}, timeout=30)
    for tool in Tool.objects.all():
        own = word_vector(tool_embedding_text(tool.name, tool.description, None, tool.parameters), 384)
        assert float(np.dot(tool.embedding, own)) == pytest.approx(1.0, abs=1e-5), tool.name
        assert tool.embedding_error == ""
