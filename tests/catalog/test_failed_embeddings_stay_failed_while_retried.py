"""A `failed` embedding stays `failed`, with its error, until an attempt succeeds: beat re-queues
failed rows every minute, and /readyz's count of failed rows must not swing back to pending while
the re-queued work retries against a provider that is still down."""
import time

import pytest

from tests.support.openai_server import FakeOpenAI, provider_settings, use_as_provider
from tests.support.worker import celery_worker, wait_for
from toolcatalog import services
from toolcatalog.models import EmbeddingStatus, Tool

pytestmark = pytest.mark.django_db(transaction=True)


def embedding_calls(server: FakeOpenAI) -> int:
    return len([r for r in server.requests if r["path"].endswith("/embeddings")])


def test_readyz_counts_the_failed_row_through_every_retry(client, settings, fake_openai) -> None:
    use_as_provider(settings, fake_openai, "fake-embed-down")
    fake_openai.fail_with = 503
    with celery_worker({**provider_settings(fake_openai, "fake-embed-down"), "EMBEDDING_MAX_RETRIES": "2",
                        "EMBEDDING_RETRY_BACKOFF_SECONDS": "0.5"}):
        tool = services.save_validated(Tool(name="play_music", description="Play a song"))
        assert wait_for(lambda: Tool.objects.get(pk=tool.pk).embedding_status == EmbeddingStatus.FAILED, timeout=30)
        calls = embedding_calls(fake_openai)

        assert services.requeue_stale_embeddings() == 1  # what beat does every minute
        seen = []
        deadline = time.monotonic() + 30
        while embedding_calls(fake_openai) < calls + 3:  # the attempt and its two retries
            embeddings = client.get("/readyz").json()["embeddings"]
            seen.append((embeddings["failed"], embeddings["pending"]))
            assert time.monotonic() < deadline, "the re-queued work never ran"
        assert set(seen) == {(1, 0)}, seen
        assert wait_for(lambda: Tool.objects.get(pk=tool.pk).embedding_status == EmbeddingStatus.FAILED, timeout=30)
        assert "503" in Tool.objects.get(pk=tool.pk).embedding_error

        fake_openai.fail_with = None  # the provider recovers: the next attempt makes the row ready
        assert services.requeue_stale_embeddings() == 1
        assert wait_for(lambda: Tool.objects.get(pk=tool.pk).embedding_status == EmbeddingStatus.READY, timeout=30)
        assert client.get("/readyz").json()["embeddings"]["failed"] == 0
