"""A tool the request names as code spells it comes first through the endpoint (engine/named.py)."""
import pytest

from tests.support.catalog import post_route

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("demo_catalog")]


def test_a_named_tool_leads_the_answer_with_via_named(route_client) -> None:
    plain = post_route(route_client, query="play some jazz", include_core=False, limit=3)
    assert "github.search_issues" not in [m["name"] for m in plain["matches"]]
    body = post_route(route_client, query="play some jazz, then github.search_issues", include_core=False, limit=3,
                      explain=True)
    first = body["matches"][0]
    assert (first["name"], first["via"], first["score"]) == ("github.search_issues", "named", 1.0)
    assert body["tools"][0]["function"]["name"] == "github__search_issues"


def test_its_exported_name_names_it_too(route_client) -> None:
    body = post_route(route_client, query="call github__search_issues for open bugs", include_core=False, limit=2)
    assert body["matches"][0]["name"] == "github.search_issues"
