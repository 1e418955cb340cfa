"""A tool added in the admin is routed lexically at once and semantically once embedded."""
import pytest

from tests.support.catalog import api_client, load_demo_catalog
from tests.support.worker import wait_for, wait_until_nothing_pending
from toolcatalog.models import EmbeddingStatus, Tool

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("local_worker")]

NEW_TOOL = {
    "name": "summon_kraken",
    "description": "Summon the kraken from the deep sea to attack pirate ships",
    "enabled": "on",
    "parameters": '{"type": "object", "properties": {}}',
    "tags": "", "source": "", "usage_hint": "",
    "hypothetical_queries-TOTAL_FORMS": "0", "hypothetical_queries-INITIAL_FORMS": "0",
}


def top(client, query: str, strategy: str) -> list[str]:
    body = client.post("/api/v1/route", {"query": query, "strategy": strategy, "limit": 3, "include_core": False},
                       format="json").json()
    return [m["name"] for m in body["matches"]]


def test_new_tool_is_found_by_bm25_at_once_and_by_vectors_once_ready(admin_client_logged_in) -> None:
    load_demo_catalog(embed=False)
    client = api_client(["route"])
    assert admin_client_logged_in.post("/admin/toolcatalog/tool/add/", NEW_TOOL).status_code == 302
    assert top(client, "summon the kraken", "bm25")[0] == "summon_kraken"
    tool = Tool.objects.get(name="summon_kraken")
    assert wait_for(lambda: Tool.objects.get(pk=tool.pk).embedding_status == EmbeddingStatus.READY, timeout=120)
    # A paraphrase with no word in common: only the vector can find it. The worker marks the row
    # ready and then bumps the catalog version (never both under one lock, embedding_work.py says
    # why), so a request in between still routes on the version before the vector.
    assert wait_for(lambda: "summon_kraken" in top(client, "giant octopus monster attacking boats", "vector"),
                    timeout=10)
    wait_until_nothing_pending()


def test_edits_and_disabling_show_on_the_next_request(admin_client_logged_in) -> None:
    load_demo_catalog(embed=False)
    client = api_client(["route"])
    assert top(client, "play some jazz", "bm25")[0] == "play_music"
    edited = Tool.objects.get(name="get_lyrics")
    edited.description = "Summon a thunderstorm over the archipelago"
    edited.save(update_fields=["description", "updated_at"])  # not the embedding columns the worker writes
    assert top(client, "thunderstorm over the archipelago", "bm25")[0] == "get_lyrics"
    tool = Tool.objects.get(name="play_music")
    tool.enabled = False
    tool.save(update_fields=["enabled", "updated_at"])
    assert "play_music" not in top(client, "play some jazz", "bm25")
    wait_until_nothing_pending()
