"""A suggestion accepted, or a dashboard query added, whose text its tool already holds as an
unapproved hypothetical query approves that query: it then routes, as the page's message says."""
import pytest
from rest_framework.test import APIClient

from tests.support.catalog import api_client
from tests.usage.learning_support import request_with_feedback
from toolcatalog.models import HypotheticalQuery, Tool
from usage import services as usage
from usage import suggestions
from usage.models import Suggestion

from .records import make_record

pytestmark = [pytest.mark.django_db]

QUERY = "zorblax the quarterly flumps"


@pytest.fixture
def send_email() -> Tool:
    Tool.objects.create(name="play_music", description="Play a song")
    return Tool.objects.create(name="send_email", description="Send an email message")


@pytest.fixture
def route() -> APIClient:
    return api_client(["route"])


def routed_first(route: APIClient, query: str) -> str | None:
    body = route.post("/api/v1/route", {"query": query, "strategy": "bm25", "limit": 3,
                                                       "include_core": False}, format="json").json()
    return body["matches"][0]["name"] if body["matches"] else None


def unapproved_copy(route: APIClient, tool: Tool) -> None:
    HypotheticalQuery.objects.create(tool=tool, text=QUERY, approved=False)
    assert routed_first(route, QUERY) != tool.name


def test_accepting_the_suggestion_approves_the_query_and_it_routes(admin_client_logged_in, send_email, route) -> None:
    request_with_feedback(QUERY, ["play_music"], [], missing=["send_email"])
    suggestions.refresh_suggestions()
    unapproved_copy(route, send_email)  # added meanwhile (an import, the admin) but not approved
    response = admin_client_logged_in.post("/admin/suggestions/decide", {"accept": Suggestion.objects.get().pk},
                                           follow=True)
    assert "is now a hypothetical query of send_email" in response.content.decode()
    assert HypotheticalQuery.objects.get(text=QUERY).approved
    assert routed_first(route, QUERY) == "send_email"


def test_adding_it_on_the_dashboard_approves_the_query_and_it_routes(staff_client, send_email, route) -> None:
    usage.record_request(make_record(request_id="miss", query=QUERY, results=[], confidence=None))
    usage.drain_request_buffer()
    unapproved_copy(route, send_email)
    response = staff_client.post("/dashboard/curation/add", {"query": QUERY, "tool": "send_email"}, follow=True)
    assert "as a hypothetical query of send_email" in response.content.decode()
    assert HypotheticalQuery.objects.get(text=QUERY).approved
    assert routed_first(route, QUERY) == "send_email"
