"""A catalog change patches the web process's index with the changed rows alone, and the
next request sees it; the patched index is the one a full rebuild gives; a change that does
not say what it changed, or a category hidden, falls back to the full rebuild."""
import pytest

from engine import RoutingIndex
from routing import selectors
from routing.live_index import live_index
from tests.support.catalog import api_client, load_demo_catalog
from tests.support.indexes import assert_same_index
from toolcatalog import services
from toolcatalog.embeddings import get_provider
from toolcatalog.models import Category, Tool

pytestmark = pytest.mark.django_db


def names(client, query: str, strategy: str = "bm25") -> list[str]:
    body = client.post("/api/v1/route", {"query": query, "strategy": strategy, "limit": 3, "include_core": False},
                       format="json").json()
    return [m["name"] for m in body["matches"]]


def full_rebuild() -> RoutingIndex:
    return RoutingIndex(selectors.load_snapshot(get_provider().model_id))


def test_an_edit_an_add_and_a_disable_are_patched_in_and_match_a_full_rebuild() -> None:
    load_demo_catalog()
    client = api_client(["route"])
    assert names(client, "play some jazz")[0] == "play_music"
    assert (live_index.full_builds, live_index.patches) == (1, 0)

    edited = Tool.objects.get(name="get_weather_forecast")
    edited.description = "Tell the tide tables and the kayak conditions on the fjord"
    services.save_validated(edited)
    assert names(client, "tide tables for the fjord")[0] == "get_weather_forecast"

    services.save_validated(Tool(name="tune_harpsichord", description="Tune a harpsichord before the concert"))
    assert names(client, "harpsichord tuning")[0] == "tune_harpsichord"

    disabled = Tool.objects.get(name="play_music")
    disabled.enabled = False
    services.save_validated(disabled)
    assert "play_music" not in names(client, "play some jazz")

    assert (live_index.full_builds, live_index.patches) == (1, 3)
    assert_same_index(live_index.current(get_provider().model_id), full_rebuild())


def test_new_vectors_are_patched_in_and_route_semantically() -> None:
    load_demo_catalog()
    client = api_client(["route"])
    names(client, "warm up")
    tool = services.save_validated(Tool(name="summon_kraken",
                                        description="Summon the kraken from the deep sea to attack pirate ships"))
    assert "summon_kraken" not in names(client, "giant octopus monster attacking boats", "vector")
    services.embed_objects("tool", [tool.pk])  # what the worker does
    assert "summon_kraken" in names(client, "giant octopus monster attacking boats", "vector")
    assert live_index.full_builds == 1 and live_index.patches == 2
    assert_same_index(live_index.current(get_provider().model_id), full_rebuild())


def test_a_related_tool_that_goes_away_leaves_the_lists_naming_it() -> None:
    load_demo_catalog()
    client = api_client(["route"])
    names(client, "warm up")
    linked = Tool.related_tools.through.objects.select_related("from_tool", "to_tool").first()
    assert linked is not None, "the demo catalog has related tools"
    linked.to_tool.delete()
    names(client, "warm up")
    index = live_index.current(get_provider().model_id)
    entry = index.tools[index.position[linked.from_tool.name]]
    assert linked.to_tool.name not in entry.related_tools
    assert live_index.patches == 1
    assert_same_index(index, full_rebuild())


def test_a_bulk_write_or_a_hidden_category_rebuilds_in_full() -> None:
    load_demo_catalog()
    client = api_client(["route"])
    names(client, "warm up")
    Tool.objects.filter(name="get_weather_forecast").update(description="Consult the oracle of Delphi")
    services.bump_catalog_version()  # a bulk write that does not say what it changed
    assert names(client, "oracle of Delphi")[0] == "get_weather_forecast"
    assert (live_index.full_builds, live_index.patches) == (2, 0)

    category = Category.objects.get(name=Tool.objects.filter(category__isnull=False).first().category.name)
    hidden = set(Tool.objects.filter(category=category).values_list("name", flat=True))
    category.enabled = False
    services.save_validated(category)
    names(client, "warm up")
    assert (live_index.full_builds, live_index.patches) == (3, 0)
    assert hidden.isdisjoint(live_index.current(get_provider().model_id).names)


def test_a_category_text_change_is_patched_in_and_kept_through_later_tool_edits() -> None:
    load_demo_catalog()
    client = api_client(["route"])
    names(client, "warm up")
    category = Category.objects.get(name=Tool.objects.filter(category__isnull=False).first().category.name)
    category.description = "Everything about zeppelins and other airships"
    services.save_validated(category)
    services.embed_objects("category", [category.pk])  # what the worker does
    names(client, "warm up")  # patched with the category's new text and vector
    edited = Tool.objects.exclude(category=category).first()
    edited.description = edited.description + " Also works offline."
    services.save_validated(edited)
    in_category = set(Tool.objects.filter(category=category).values_list("name", flat=True))
    assert names(client, "zeppelins and airships")[0] in in_category  # the category's words, after the tool edit
    index = live_index.current(get_provider().model_id)
    assert index.categories[category.name].description == category.description
    assert category.name in index.category_vector_names
    assert (live_index.full_builds, live_index.patches) == (1, 2)
    assert_same_index(index, full_rebuild())
