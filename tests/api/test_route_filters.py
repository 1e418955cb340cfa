"""Toolsets, categories, disabled tools and core tools restrict or extend what a route returns."""
import pytest

from tests.support.catalog import api_client
from toolcatalog.models import Category, Tool, Toolset

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("demo_catalog")]


def names(response) -> list[str]:
    assert response.status_code == 200, response.content
    return [m["name"] for m in response.json()["matches"]]


def test_toolset_restricts_to_its_tools_and_categories(route_client) -> None:
    toolset = Toolset.objects.create(name="musician")
    toolset.categories.add(Category.objects.get(name="music"))
    toolset.tools.add(Tool.objects.get(name="get_current_weather") if Tool.objects.filter(name="get_current_weather").exists()
                      else Tool.objects.filter(category__name="weather").first())
    got = names(route_client.post("/api/v1/route", {"query": "read a file", "toolset": "musician", "limit": 10,
                                                    "include_core": False}, format="json"))
    allowed = {t.name for t in Tool.objects.filter(category__name="music")} | set(toolset.tools.values_list("name", flat=True))
    assert got and set(got) <= allowed


def test_key_bound_to_a_toolset_never_sees_other_tools() -> None:
    toolset = Toolset.objects.create(name="cms-only")
    toolset.categories.add(Category.objects.get(name="cms"))  # and its sub-categories
    client = api_client(["route"], toolset=toolset, name="cms-agent")
    got = names(client.post("/api/v1/route", {"query": "play some jazz", "limit": 10, "include_core": False,
                                              "explain": True}, format="json"))
    cms_tree = {"cms", "pages", "sections", "images", "posts", "navigation"}
    in_tree = set(Tool.objects.filter(category__name__in=cms_tree).values_list("name", flat=True))
    assert got and set(got) <= in_tree
    assert "play_music" not in got


def test_categories_field_includes_sub_categories(route_client) -> None:
    got = names(route_client.post("/api/v1/route", {"query": "add a hero image", "categories": ["cms"], "limit": 8,
                                                    "include_core": False}, format="json"))
    cms_tree = {"cms", "pages", "sections", "images", "posts", "navigation"}
    assert got and all(Tool.objects.get(name=n).category.name in cms_tree for n in got)
    assert any(Tool.objects.get(name=n).category.name == "images" for n in got)


def test_disabled_tools_are_never_returned(route_client) -> None:
    assert "play_music" in names(route_client.post("/api/v1/route", {"query": "play some jazz"}, format="json"))
    tool = Tool.objects.get(name="play_music")
    tool.enabled = False
    tool.save()
    assert "play_music" not in names(route_client.post("/api/v1/route", {"query": "play some jazz", "limit": 20},
                                                       format="json"))


def test_tools_of_a_disabled_category_are_not_returned(route_client) -> None:
    music = Category.objects.get(name="music")
    music.enabled = False
    music.save()
    got = names(route_client.post("/api/v1/route", {"query": "play some jazz", "limit": 20}, format="json"))
    assert not set(got) & set(Tool.objects.filter(category=music).values_list("name", flat=True))


def test_core_tools_are_included_unless_asked_not_to(route_client) -> None:
    core = set(Tool.objects.filter(core=True, enabled=True).values_list("name", flat=True))
    assert core
    with_core = names(route_client.post("/api/v1/route", {"query": "play some jazz", "limit": 3}, format="json"))
    without = names(route_client.post("/api/v1/route", {"query": "play some jazz", "limit": 3, "include_core": False},
                                      format="json"))
    assert core <= set(with_core)
    assert not core & set(without)
