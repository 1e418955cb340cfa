"""Accepting a suggestion makes an approved hypothetical query (source "traffic") that embeds and
routes like a curated one; every decision keeps who or what made it, when, on which evidence; the
automatic mode (off by default) accepts only past its threshold and within each tool's cap."""
import pytest
from django.db import transaction

from toolcatalog import services as catalog
from toolcatalog.models import EmbeddingStatus, HypotheticalQuery, QuerySource, Tool
from usage import suggestions
from usage.models import Suggestion, SuggestionStatus

from .learning_support import request_with_feedback

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def tools() -> None:
    Tool.objects.create(name="set_timer", description="Set a countdown timer")
    Tool.objects.create(name="play_music", description="Play a song or playlist")


def _propose(query: str, tool: str = "set_timer", times: int = 1, clients: int = 1) -> Suggestion:
    for i in range(times):
        request_with_feedback(query, ["play_music"], [], missing=[tool], client=f"agent-{i % clients}")
    suggestions.refresh_suggestions()
    return Suggestion.objects.get(tool__name=tool, text=query)


def test_accepting_makes_an_approved_traffic_query_and_records_the_decision(django_user_model) -> None:
    curator = django_user_model.objects.create_user(username="curator", password="pw-for-tests-only", is_staff=True)
    suggestion = _propose("wake me in ten minutes", times=2, clients=2)
    query = suggestions.accept(suggestion, user=curator)
    assert (query.tool.name, query.text, query.source, query.approved) == \
        ("set_timer", "wake me in ten minutes", QuerySource.TRAFFIC, True)
    assert query.embedding_status == EmbeddingStatus.PENDING  # the embedding pipeline takes it from here
    suggestion.refresh_from_db()
    assert (suggestion.status, suggestion.decided_by, suggestion.decided_via, suggestion.hypothetical_query) == \
        (SuggestionStatus.ACCEPTED, curator, "admin", query)
    assert suggestion.decision_evidence["requests"] == 2
    assert suggestion.decision_evidence["clients"] == ["agent-0", "agent-1"]
    assert suggestions.accept(suggestion) == query  # twice: still one query


def test_an_accepted_query_routes_once_embedded(route_client) -> None:
    Tool.objects.create(name="get_weather", description="Get the weather forecast for a city")
    query = suggestions.accept(_propose("grab my brolly or not", tool="get_weather"))
    with transaction.atomic():
        catalog.embed_objects("query", [query.pk])  # what the worker does after the commit
    answer = route_client.post("/api/v1/route", {"query": "grab my brolly or not", "strategy": "vector", "limit": 1,
                                                 "explain": True}, format="json").json()
    assert answer["matches"][0]["name"] == "get_weather"
    assert answer["matches"][0]["matched_query"] == "grab my brolly or not"


def test_an_accepted_suggestion_cannot_be_rejected() -> None:
    suggestion = _propose("wake me in ten minutes")
    suggestions.accept(suggestion)
    with pytest.raises(suggestions.SuggestionDecisionError):
        suggestions.reject(suggestion)


def test_the_automatic_mode_is_off_by_default() -> None:
    _propose("wake me in ten minutes", times=6, clients=3)
    assert not HypotheticalQuery.objects.exists()


def test_the_automatic_mode_accepts_past_the_threshold_within_the_cap(settings) -> None:
    settings.LEARNING_AUTO_ACCEPT = True
    settings.LEARNING_AUTO_MIN_REQUESTS, settings.LEARNING_AUTO_MIN_CLIENTS = 3, 2
    settings.LEARNING_AUTO_MAX_PER_TOOL = 2
    for query in ("wake me in ten minutes", "timer for the eggs", "remind me in an hour"):
        _propose(query, times=3, clients=2)
    few = _propose("ring in five", times=2, clients=2)
    lonely = _propose("countdown please", times=4, clients=1)
    accepted = Suggestion.objects.filter(status=SuggestionStatus.ACCEPTED)
    assert accepted.count() == 2  # the cap per tool
    assert {s.decided_via for s in accepted} == {"automatic"} and all(s.decided_by is None for s in accepted)
    assert all(s.decision_evidence["requests"] >= 3 for s in accepted)
    few.refresh_from_db()
    lonely.refresh_from_db()
    assert few.status == lonely.status == SuggestionStatus.PENDING  # below the threshold: a curator decides
