"""A row edited by a plain `.save()` (a script, a shell) keeps status `ready` and its old vector:
nothing scheduled it. `manage.py reembed` (without --all) finds it by its text hash and embeds
its new text."""
from io import StringIO

import pytest
from django.core.management import call_command

from tests.support.openai_server import FakeOpenAI, use_as_provider
from toolcatalog.models import Category, EmbeddingStatus, Tool

pytestmark = pytest.mark.django_db


@pytest.fixture
def provider(settings, fake_openai: FakeOpenAI) -> FakeOpenAI:
    use_as_provider(settings, fake_openai, "fake-embed-1")
    return fake_openai


def reembed() -> str:
    out = StringIO()
    call_command("reembed", stdout=out, stderr=StringIO())
    return out.getvalue()


def embedded_texts(provider: FakeOpenAI) -> list[str]:
    return [text for request in provider.requests if request["path"].endswith("/embeddings")
            for text in request["body"]["input"]]


def test_reembed_embeds_the_new_text_of_a_tool_edited_by_a_plain_save(provider: FakeOpenAI) -> None:
    tool = Tool.objects.create(name="play_music", description="Play a song")
    reembed()
    tool.refresh_from_db()
    assert tool.embedding is not None
    old_hash, old_vector = tool.embedding_text_hash, list(tool.embedding)

    tool.description = "Send an email to a contact"
    tool.save()
    assert Tool.objects.get(pk=tool.pk).embedding_status == EmbeddingStatus.READY  # nothing noticed yet

    output = reembed()
    tool.refresh_from_db()
    assert any("Send an email to a contact" in text for text in embedded_texts(provider))
    assert tool.embedding_status == EmbeddingStatus.READY
    assert tool.embedding_text_hash != old_hash
    assert tool.embedding is not None and list(tool.embedding) != old_vector
    assert "found 1 edited" in output


def test_reembed_embeds_the_tools_of_a_category_renamed_by_a_plain_save(provider: FakeOpenAI) -> None:
    category = Category.objects.create(name="music", description="Songs and albums")
    tool = Tool.objects.create(name="play_music", description="Play a song", category=category)
    reembed()

    category = Category.objects.get(pk=category.pk)  # as a shell loads it: ready, with its hash
    category.name = "audio"
    category.save()
    output = reembed()
    assert any("Category: audio" in text for text in embedded_texts(provider))
    assert "found 2 edited" in output  # the category's own text and its tool's, which names it
    tool.refresh_from_db()
    assert tool.embedding_status == EmbeddingStatus.READY


def test_reembed_finds_nothing_when_no_text_changed(provider: FakeOpenAI) -> None:
    Tool.objects.create(name="play_music", description="Play a song")
    reembed()
    requests_before = len(provider.requests)
    assert "found 0 edited" in reembed()
    assert len(provider.requests) == requests_before
