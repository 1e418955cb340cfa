"""/admin/suggestions/: staff only, in the admin's look; lists pending suggestions with their evidence;
one-click accept and reject are POST forms with the CSRF token; refresh reads the log again."""
import pytest
from django.test import Client

from tests.usage.learning_support import request_with_feedback
from toolcatalog.models import HypotheticalQuery, Tool
from usage import suggestions
from usage.models import Suggestion, SuggestionStatus

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fresh_usage_buffers")]


@pytest.fixture
def proposed() -> Suggestion:
    Tool.objects.create(name="set_timer", description="Set a countdown timer")
    request_with_feedback("wake me in ten minutes", ["play_music"], [], missing=["set_timer"], client="kitchen-bot")
    suggestions.refresh_suggestions()
    return Suggestion.objects.get()


def test_lists_the_evidence_in_the_admin(admin_client_logged_in, proposed) -> None:
    html = admin_client_logged_in.get("/admin/suggestions/").content.decode()
    assert "Suggestions from traffic" in html and 'id="site-name"' in html  # the admin's own page frame
    row = html[html.index('id="suggestion-list"'):]
    assert "wake me in ten minutes" in row and "set_timer" in row and "kitchen-bot" in row
    assert "needed, not offered" in row and "not offered in 1 of 1" in row


def test_accept_and_reject_in_one_click(admin_client_logged_in, proposed) -> None:
    response = admin_client_logged_in.post("/admin/suggestions/decide", {"accept": proposed.pk}, follow=True)
    assert "is now a hypothetical query of set_timer" in response.content.decode()
    assert HypotheticalQuery.objects.filter(tool__name="set_timer", text="wake me in ten minutes",
                                            source="traffic").exists()
    html = response.content.decode()
    decisions = html[html.index('id="decision-list"'):]
    assert "accepted" in decisions and "curator" in decisions
    request_with_feedback("timer please", ["play_music"], [], missing=["set_timer"])
    suggestions.refresh_suggestions()
    other = Suggestion.objects.get(status=SuggestionStatus.PENDING)
    response = admin_client_logged_in.post("/admin/suggestions/decide", {"reject": other.pk, "kind": "missing"},
                                           follow=True)
    assert response.redirect_chain[-1][0] == "/admin/suggestions/?kind=missing"
    assert Suggestion.objects.get(pk=other.pk).status == SuggestionStatus.REJECTED


def test_refresh_reads_the_log(admin_client_logged_in) -> None:
    Tool.objects.create(name="set_timer", description="Set a countdown timer")
    request_with_feedback("egg timer", ["play_music"], [], missing=["set_timer"])
    response = admin_client_logged_in.post("/admin/suggestions/refresh", follow=True)
    assert "1 new" in response.content.decode() and Suggestion.objects.count() == 1


def test_decisions_need_a_csrf_token(django_user_model, proposed) -> None:
    client = Client(enforce_csrf_checks=True)
    client.force_login(django_user_model.objects.create_superuser(username="op", password="pw-for-tests-only"))
    assert client.post("/admin/suggestions/decide", {"accept": proposed.pk}).status_code == 403
    assert Suggestion.objects.get().status == SuggestionStatus.PENDING


def test_only_staff(client, django_user_model, proposed) -> None:
    assert client.get("/admin/suggestions/").status_code == 302
    client.force_login(django_user_model.objects.create_user(username="user", password="pw-for-tests-only"))
    assert client.post("/admin/suggestions/decide", {"accept": proposed.pk}).status_code == 302
    assert Suggestion.objects.get().status == SuggestionStatus.PENDING


def test_says_why_nothing_is_learned_when_queries_are_hashed(admin_client_logged_in, settings) -> None:
    settings.USAGE_QUERY_STORAGE = "hash"
    assert "not stored as text" in admin_client_logged_in.get("/admin/suggestions/").content.decode()
