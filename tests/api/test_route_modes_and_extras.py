"""Threshold mode, explain, guidance, tokens and sessions through the endpoint."""
import pytest

from tests.support.catalog import post_route
from toolcatalog.models import Category, Tool

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("demo_catalog")]


def test_threshold_mode_ranks_only_tools_above_it(route_client) -> None:
    body = post_route(route_client, query="play some jazz", mode="threshold", threshold=0.6, include_core=False,
                      explain=True)
    ranked = [m for m in body["matches"] if m["via"] == "rank"]
    assert ranked and all(m["score"] >= 0.6 for m in ranked)
    # Places the threshold left empty may hold related tools of the strong hits, after them.
    others = body["matches"][len(ranked):]
    assert all(m["via"] == "related" for m in others)
    assert body["strategy"]["fallback"] is False


def test_threshold_nothing_passes_gives_the_top_few_with_fallback(route_client) -> None:
    body = post_route(route_client, query="play some jazz", mode="threshold", threshold=1.0, include_core=False)
    assert 1 <= len(body["matches"]) <= 5
    assert body["strategy"]["fallback"] is True


def test_explain_adds_scores_matched_query_and_category_path(route_client) -> None:
    body = post_route(route_client, query="add a hero image to the section", strategy="hybrid", explain=True)
    first = body["matches"][0]
    assert {"lexical_score", "semantic_score", "matched_query", "category_path"} <= set(first)
    images = [m for m in body["matches"] if m["category"] == "images"]
    assert images and images[0]["category_path"] == ["cms", "images"]


def test_no_explain_fields_without_explain(route_client) -> None:
    body = post_route(route_client, query="play some jazz")
    assert "lexical_score" not in body["matches"][0]


def test_guidance_holds_each_category_hint_once_with_parents(route_client) -> None:
    body = post_route(route_client, query="find an image and attach it to the hero section", limit=6, include_core=False)
    images_hint = Category.objects.get(name="images").workflow_hint
    cms_hint = Category.objects.get(name="cms").workflow_hint
    assert images_hint in body["guidance"]
    assert body["guidance"].count(images_hint) == 1
    if cms_hint:
        assert body["guidance"].count(cms_hint) == 1


def test_usage_hints_come_with_the_matches(route_client) -> None:
    body = post_route(route_client, query="play some jazz", include_core=False)
    assert body["matches"][0]["hint"] == Tool.objects.get(name="play_music").usage_hint


def test_token_figures_compare_selected_with_the_whole_allowed_catalog(route_client) -> None:
    small = post_route(route_client, query="play some jazz", limit=1, include_core=False)
    large = post_route(route_client, query="play some jazz", limit=10, include_core=False)
    assert small["tokens"]["catalog"] == large["tokens"]["catalog"]
    assert 0 < small["tokens"]["selected"] < large["tokens"]["selected"] < large["tokens"]["catalog"]
    assert small["tokens"]["saved_pct"] == pytest.approx(100 * small["tokens"]["saved"] / small["tokens"]["catalog"], abs=0.1)


def test_a_session_remembers_the_tools_it_discovered(route_client) -> None:
    first = post_route(route_client, query="play some jazz", limit=1, include_core=False, session_id="s-1")
    second = post_route(route_client, query="read the contents of a file", limit=1, include_core=False, session_id="s-1")
    active = second["session"]["active_tools"]
    assert first["matches"][0]["name"] in active and second["matches"][0]["name"] in active
    other = post_route(route_client, query="what's the weather", limit=1, include_core=False, session_id="s-2")
    assert first["matches"][0]["name"] not in other["session"]["active_tools"]


def test_same_request_same_answer(route_client) -> None:
    first = post_route(route_client, query="search", limit=10, strategy="hybrid")
    second = post_route(route_client, query="search", limit=10, strategy="hybrid")
    assert [m["name"] for m in first["matches"]] == [m["name"] for m in second["matches"]]
