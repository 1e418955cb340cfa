"""An API edit answers with the tool as it now is: a new description makes its vector stale, so
the answer (like a later GET) says `pending`, not the `ready` of the vector it had."""
import pytest
from django.core.management import call_command

from tests.support.catalog import api_client
from tests.support.openai_server import use_as_provider
from toolcatalog.models import EmbeddingStatus, Tool

pytestmark = pytest.mark.django_db


def test_patching_the_description_answers_pending(settings, fake_openai) -> None:
    use_as_provider(settings, fake_openai, "fake-embed-1")
    curator = api_client(["catalog"], name="curator")
    assert curator.post("/api/v1/tools", {"name": "play_music", "description": "Play a song"},
                        format="json").status_code == 201
    call_command("reembed", stdout=open("/dev/null", "w"), stderr=open("/dev/null", "w"))
    assert curator.get("/api/v1/tools/play_music").json()["embedding_status"] == "ready"

    unchanged_text = curator.patch("/api/v1/tools/play_music", {"usage_hint": "Returns a track id."}, format="json")
    assert unchanged_text.status_code == 200 and unchanged_text.json()["embedding_status"] == "ready"

    edited = curator.patch("/api/v1/tools/play_music", {"description": "Play a song or a podcast"}, format="json")
    assert edited.status_code == 200, edited.content
    assert edited.json()["embedding_status"] == "pending"
    assert Tool.objects.get(name="play_music").embedding_status == EmbeddingStatus.PENDING
    assert curator.get("/api/v1/tools/play_music").json()["embedding_status"] == "pending"
