"""When a web process rebuilds its index in full (a new calibration, a bulk write, a hidden
category), the tools that did not change keep the token counts the process already made, so the
next request does not count the whole catalog again."""
import pytest

from routing.live_index import live_index
from tests.support.catalog import api_client, load_demo_catalog
from toolcatalog import services
from toolcatalog.embeddings import get_provider
from toolcatalog.models import Tool

pytestmark = pytest.mark.django_db


def test_a_bulk_write_rebuilds_in_full_with_the_counts_of_the_unchanged_tools() -> None:
    load_demo_catalog()
    client = api_client(["route"])
    assert client.post("/api/v1/route", {"query": "play some jazz"}, format="json").status_code == 200
    Tool.objects.filter(name="get_weather_forecast").update(description="Consult the oracle of Delphi")
    services.bump_catalog_version()  # a bulk write that does not say what it changed

    index = live_index.current(get_provider().model_id)

    assert live_index.full_builds == 2
    counts = index.token_counter.known_counts()["openai"]
    edited = index.position["get_weather_forecast"]
    assert counts[edited] == -1
    assert (counts[[i for i in range(len(index)) if i != edited]] > 0).all()
    answer = client.post("/api/v1/route", {"query": "oracle of Delphi", "strategy": "bm25"}, format="json").json()
    assert answer["matches"][0]["name"] == "get_weather_forecast"
    assert index.token_counter.known_counts()["openai"][edited] > 0
