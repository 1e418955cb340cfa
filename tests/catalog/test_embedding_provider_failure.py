"""The `openai` provider against a real local HTTP server that fails, then recovers."""
import pytest
from django.core.management import call_command

from tests.support.openai_server import FakeOpenAI
from tests.support.worker import celery_worker, wait_for
from toolcatalog import services
from toolcatalog.models import EmbeddingStatus, Tool

pytestmark = pytest.mark.django_db(transaction=True)


def openai_settings(settings, server: FakeOpenAI, model: str = "fake-embed-1") -> dict[str, str]:
    settings.EMBEDDING_PROVIDER = "openai"
    settings.EMBEDDING_MODEL = model
    settings.EMBEDDING_BASE_URL = server.base_url
    settings.EMBEDDING_API_KEY = "test-key"
    return {
        "EMBEDDING_PROVIDER": "openai",
        "EMBEDDING_MODEL": model,
        "EMBEDDING_BASE_URL": server.base_url,
        "EMBEDDING_API_KEY": "test-key",
        "EMBEDDING_MAX_RETRIES": "1",
        "EMBEDDING_RETRY_BACKOFF_SECONDS": "0.2",
    }


def refreshed(tool: Tool) -> Tool:
    tool.refresh_from_db()
    return tool


def test_failing_provider_leaves_the_tool_saved_and_its_embedding_failed_then_recovers(settings, fake_openai) -> None:
    fake_openai.fail_with = 500
    with celery_worker(openai_settings(settings, fake_openai)):
        tool = services.save_validated(Tool(name="play_music", description="Play a song"))
        assert Tool.objects.filter(name="play_music").exists()
        assert wait_for(lambda: refreshed(tool).embedding_status == EmbeddingStatus.FAILED, timeout=30)
        assert "500" in tool.embedding_error or "injected failure" in tool.embedding_error
        assert len(fake_openai.requests) >= 2  # first try and one retry

        fake_openai.fail_with = None
        assert services.requeue_stale_embeddings() >= 1
        assert wait_for(lambda: refreshed(tool).embedding_status == EmbeddingStatus.READY, timeout=30)
        assert tool.embedding_error == ""
        assert tool.embedding_model == "openai:fake-embed-1"


def test_reembed_after_a_model_change_reembeds_everything(settings, fake_openai) -> None:
    openai_settings(settings, fake_openai, model="fake-embed-1")
    tools = [Tool(name=f"tool_{i}", description=f"Tool number {i}") for i in range(5)]
    for tool in tools:
        tool.save()  # no worker: the rows stay pending until reembed
    call_command("reembed")
    assert set(Tool.objects.values_list("embedding_model", flat=True)) == {"openai:fake-embed-1"}

    openai_settings(settings, fake_openai, model="fake-embed-2")
    calls_before = len(fake_openai.requests)
    call_command("reembed")
    assert set(Tool.objects.values_list("embedding_model", flat=True)) == {"openai:fake-embed-2"}
    assert set(Tool.objects.values_list("embedding_status", flat=True)) == {EmbeddingStatus.READY}
    assert len(fake_openai.requests) > calls_before


def test_reembed_all_redoes_rows_that_are_current(settings, fake_openai) -> None:
    openai_settings(settings, fake_openai)
    Tool.objects.create(name="one", description="First tool")
    call_command("reembed")
    calls_before = len(fake_openai.requests)
    call_command("reembed")
    assert len(fake_openai.requests) == calls_before  # nothing stale
    call_command("reembed", "--all")
    assert len(fake_openai.requests) == calls_before + 1
