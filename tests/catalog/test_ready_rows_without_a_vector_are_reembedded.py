"""A row left `ready` without a vector (by a provider that once answered fewer vectors than texts,
before such answers were refused) is not ready: `reembed` without --all, and beat's re-queue,
embed it again."""
import pytest
from django.core.management import call_command

from tests.support.openai_server import use_as_provider
from toolcatalog import services
from toolcatalog.models import EmbeddingStatus, Tool

pytestmark = pytest.mark.django_db


@pytest.fixture
def provider(settings, fake_openai):
    use_as_provider(settings, fake_openai, "fake-embed-1")
    return fake_openai


def damaged_tool() -> Tool:
    tool = Tool.objects.create(name="play_music", description="Play a song")
    call_command("reembed", stdout=open("/dev/null", "w"), stderr=open("/dev/null", "w"))
    Tool.objects.filter(pk=tool.pk).update(embedding=None)  # what the short answer left: ready, hash set
    tool.refresh_from_db()
    assert tool.embedding_status == EmbeddingStatus.READY and tool.embedding_text_hash
    return tool


def test_reembed_gives_a_ready_row_without_a_vector_its_vector(provider) -> None:
    tool = damaged_tool()
    call_command("reembed", stdout=open("/dev/null", "w"), stderr=open("/dev/null", "w"))
    tool.refresh_from_db()
    assert tool.embedding is not None and tool.embedding_status == EmbeddingStatus.READY


def test_beat_requeues_a_ready_row_without_a_vector(provider) -> None:
    damaged_tool()
    assert services.requeue_stale_embeddings() == 1
