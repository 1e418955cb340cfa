"""A save through the catalog services (admin, API, import) gets a `ready` embedding from a real
worker, without waiting for it."""
import pytest

from tests.support.worker import wait_for
from toolcatalog.local_model import adaptation_hash
from toolcatalog.models import Category, EmbeddingStatus, HypotheticalQuery, Tool
from toolcatalog.services import save_validated

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("local_worker")]

TOOL_FORM = {
    "name": "play_music",
    "description": "Play a song or playlist",
    "enabled": "on",
    "parameters": '{"type": "object", "properties": {"query": {"type": "string", "description": "song"}}}',
    "usage_hint": "Returns a track id.",
    "tags": "",
    "source": "",
    "hypothetical_queries-TOTAL_FORMS": "1",
    "hypothetical_queries-INITIAL_FORMS": "0",
    "hypothetical_queries-MIN_NUM_FORMS": "0",
    "hypothetical_queries-MAX_NUM_FORMS": "1000",
    "hypothetical_queries-0-text": "put on some jazz",
    "hypothetical_queries-0-source": "curated",
    "hypothetical_queries-0-approved": "on",
}


def status_of(tool: Tool) -> str:
    tool.refresh_from_db()
    return tool.embedding_status


def test_tool_saved_in_the_admin_gets_a_ready_embedding(admin_client_logged_in) -> None:
    response = admin_client_logged_in.post("/admin/toolcatalog/tool/add/", TOOL_FORM)
    assert response.status_code == 302, response.content[:2000]
    tool = Tool.objects.get(name="play_music")
    assert wait_for(lambda: status_of(tool) == EmbeddingStatus.READY, timeout=60)
    assert len(tool.embedding) == 384
    assert tool.embedding_model == f"local:all-MiniLM-L6-v2-tools@{adaptation_hash()[:10]}"  # the default model
    query = HypotheticalQuery.objects.get(tool=tool)
    assert wait_for(lambda: HypotheticalQuery.objects.get(pk=query.pk).embedding_status == EmbeddingStatus.READY)


def test_unchanged_save_enqueues_nothing_and_a_change_reembeds() -> None:
    tool = save_validated(Tool(name="search_web", description="Search the web"))
    assert wait_for(lambda: status_of(tool) == EmbeddingStatus.READY, timeout=60)
    first_embedded_at = tool.embedded_at
    save_validated(tool)
    assert status_of(tool) == EmbeddingStatus.READY  # no pending round trip
    tool.usage_hint = "hints are not part of the embedded text"
    save_validated(tool)
    assert status_of(tool) == EmbeddingStatus.READY
    assert tool.embedded_at == first_embedded_at
    tool.description = "Search the internet for pages"
    save_validated(tool)
    assert status_of(tool) == EmbeddingStatus.PENDING
    assert wait_for(lambda: status_of(tool) == EmbeddingStatus.READY, timeout=30)
    assert tool.embedded_at > first_embedded_at


def test_categories_are_embedded_too() -> None:
    category = save_validated(Category(name="music", description="Play songs", keywords=["song", "album"]))
    assert wait_for(lambda: Category.objects.get(pk=category.pk).embedding_status == EmbeddingStatus.READY, timeout=60)
