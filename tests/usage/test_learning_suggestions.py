"""Which logged queries are proposed as hypothetical queries of which tool, with what evidence."""
from datetime import timedelta

import pytest
from django.utils import timezone

from toolcatalog.models import HypotheticalQuery, Tool
from usage import suggestions
from usage.models import Suggestion, SuggestionKind, SuggestionStatus

from .learning_support import request_with_feedback

pytestmark = pytest.mark.django_db
TOOLS = {"get_weather": "Get the weather forecast for a city", "play_music": "Play a song or playlist",
         "search_music": "Search songs by artist or title", "set_timer": "Set a countdown timer",
         "send_email": "Send an email message to a recipient", "book_flight": "Book a flight between two airports"}


@pytest.fixture(autouse=True)
def tools() -> None:
    for name, description in TOOLS.items():
        Tool.objects.create(name=name, description=description)


def _pending() -> dict[tuple[str, str], Suggestion]:
    return {(s.tool.name, s.text): s for s in Suggestion.objects.filter(status=SuggestionStatus.PENDING)
            .select_related("tool")}


def test_a_needed_tool_that_was_not_offered_is_proposed_at_once_with_its_evidence() -> None:
    request_with_feedback("wake me in ten minutes", ["play_music", "search_music"], ["set_timer"])
    suggestions.refresh_suggestions()
    found = _pending()[("set_timer", "wake me in ten minutes")]
    assert (found.kind, found.requests, found.clients, found.not_offered, found.best_rank) == \
        (SuggestionKind.MISSING, 1, ["agent-a"], 1, None)
    assert timezone.now() - found.last_seen < timedelta(minutes=1)


def test_missing_tools_reported_by_a_client_are_proposed() -> None:
    request_with_feedback("is it going to rain", ["play_music"], [], missing=["get_weather"])
    suggestions.refresh_suggestions()
    assert _pending()[("get_weather", "is it going to rain")].kind == SuggestionKind.MISSING


def test_a_tool_used_at_a_low_rank_is_proposed() -> None:
    request_with_feedback("put on something relaxing", ["search_music", "get_weather", "set_timer", "send_email",
                                                         "play_music"], ["play_music"])
    suggestions.refresh_suggestions()
    found = _pending()[("play_music", "put on something relaxing")]
    assert (found.kind, found.best_rank) == (SuggestionKind.RANKED_LOW, 5)


def test_a_confirmed_query_is_proposed_only_once_it_repeats() -> None:
    request_with_feedback("play some jazz", ["play_music", "search_music"], ["play_music"])
    suggestions.refresh_suggestions()
    assert not _pending()
    request_with_feedback("Play  some JAZZ", ["play_music", "search_music"], ["play_music"], client="agent-b")
    suggestions.refresh_suggestions()
    (found,) = _pending().values()
    assert (found.kind, found.requests, found.clients, found.best_rank) == \
        (SuggestionKind.CONFIRMED, 2, ["agent-a", "agent-b"], 1)


def test_a_request_that_needed_several_tools_teaches_each_its_own_part() -> None:
    request_with_feedback("Book a flight from Oslo to Rome on Friday. Then, send an email to Ana with the itinerary.",
                          ["play_music"], [], missing=["book_flight", "send_email"])
    suggestions.refresh_suggestions()
    assert set(_pending()) == {("book_flight", "Book a flight from Oslo to Rome on Friday."),
                               ("send_email", "Send an email to Ana with the itinerary.")}


def test_a_query_the_tool_already_has_is_not_proposed() -> None:
    HypotheticalQuery.objects.create(tool=Tool.objects.get(name="set_timer"), text="Wake me in ten minutes")
    request_with_feedback("wake me in ten minutes", ["play_music"], ["set_timer"])
    suggestions.refresh_suggestions()
    assert not _pending()


def test_a_rejected_query_is_never_proposed_again() -> None:
    request_with_feedback("wake me in ten minutes", ["play_music"], ["set_timer"])
    suggestions.refresh_suggestions()
    suggestions.reject(_pending()[("set_timer", "wake me in ten minutes")])
    request_with_feedback("wake me in ten minutes", ["play_music"], ["set_timer"], client="agent-b")
    suggestions.refresh_suggestions()
    assert not _pending()
    rejected = Suggestion.objects.get()
    assert (rejected.status, rejected.requests) == (SuggestionStatus.REJECTED, 2)


@pytest.mark.parametrize("storage", ["hash", "drop"])
def test_nothing_is_learned_from_queries_not_stored_as_text(settings, storage) -> None:
    settings.USAGE_QUERY_STORAGE = storage
    request_with_feedback("wake me in ten minutes", ["play_music"], ["set_timer"])
    settings.USAGE_QUERY_STORAGE = "store"  # even when the setting changes back: the log has no text
    report = suggestions.refresh_suggestions()
    assert not Suggestion.objects.exists() and not report.paused
    settings.USAGE_QUERY_STORAGE = storage
    assert "not stored as text" in suggestions.refresh_suggestions().paused


def test_retention_forgets_pending_suggestions_and_the_text_of_rejected_ones(settings) -> None:
    old = timezone.now() - timedelta(days=settings.USAGE_RETENTION_DAYS + 2)
    for query in ("wake me in ten minutes", "is it going to rain"):
        request_with_feedback(query, ["play_music"], [], missing=["set_timer" if "wake" in query else "get_weather"])
    suggestions.refresh_suggestions()
    suggestions.reject(_pending()[("get_weather", "is it going to rain")])
    Suggestion.objects.update(last_seen=old)
    suggestions.forget_aged_out()
    (rejected,) = Suggestion.objects.all()
    assert (rejected.status, rejected.text) == (SuggestionStatus.REJECTED, "")


def test_weak_queries_get_their_likely_tools_proposed(settings) -> None:
    from usage import services as usage

    from .records import make_record

    for i in range(2):
        usage.record_request(make_record(request_id=f"weak-{i}", query="will I need an umbrella", results=[],
                                         confidence=None))
    usage.drain_request_buffer()
    suggestions.refresh_suggestions(likely_tools=lambda texts: {t: ["get_weather", "set_timer"] for t in texts})
    pending = _pending()
    assert {tool for tool, _ in pending} == {"get_weather", "set_timer"}
    weak = pending[("get_weather", "will I need an umbrella")]
    assert (weak.kind, weak.requests, weak.alternatives) == (SuggestionKind.WEAK, 2, ["set_timer"])
    suggestions.accept(weak)
    sibling = Suggestion.objects.get(tool__name="set_timer")
    assert sibling.status == SuggestionStatus.REJECTED and sibling.decided_via == "admin:other"


def test_a_weak_query_curated_by_hand_leaves_its_likely_tools(settings) -> None:
    from usage import services as usage

    from .records import make_record

    usage.record_request(make_record(request_id="weak", query="will I need an umbrella", results=[], confidence=None))
    usage.drain_request_buffer()
    likely = lambda texts: {t: ["get_weather", "set_timer"] for t in texts}  # noqa: E731
    suggestions.refresh_suggestions(likely_tools=likely)
    assert len(_pending()) == 2
    usage.add_learned_query("get_weather", "Will I need an umbrella")  # the dashboard's curation, by hand
    suggestions.refresh_suggestions(likely_tools=likely)
    assert not _pending()
