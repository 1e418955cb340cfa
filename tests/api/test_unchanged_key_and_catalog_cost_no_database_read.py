"""A route request whose key and catalog have not changed since the process last read them reads
nothing from the database; after a change, the next request reads what changed."""
from __future__ import annotations

import pytest

from api.models import ApiKey
from tests.support.catalog import api_client, load_demo_catalog
from toolcatalog.models import Tool

pytestmark = pytest.mark.django_db
JAZZ = {"query": "play some jazz", "strategy": "bm25", "limit": 3, "include_core": False}


def names(response) -> list[str]:
    assert response.status_code == 200, response.content
    return [m["name"] for m in response.json()["matches"]]


def test_a_repeated_request_reads_nothing_from_the_database(django_assert_num_queries) -> None:
    load_demo_catalog(embed=False)
    agent = api_client(["route"])
    names(agent.post("/api/v1/route", JAZZ, format="json"))  # reads the key and the catalog, builds the index
    with django_assert_num_queries(0):
        assert names(agent.post("/api/v1/route", JAZZ, format="json"))[0] == "play_music"


def test_after_a_change_the_next_request_reads_it() -> None:
    load_demo_catalog(embed=False)
    agent = api_client(["route"])
    assert names(agent.post("/api/v1/route", JAZZ, format="json"))[0] == "play_music"
    tool = Tool.objects.get(name="play_music")
    tool.enabled = False
    tool.save()
    assert "play_music" not in names(agent.post("/api/v1/route", JAZZ, format="json"))
    ApiKey.objects.update(scopes=["catalog"])
    assert agent.post("/api/v1/route", JAZZ, format="json").status_code == 403
