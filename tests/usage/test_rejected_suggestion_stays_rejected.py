"""A rejected suggestion is not accepted by a later click on a stale page: refused with a message,
as accepting and then rejecting is."""
import pytest

from tests.usage.learning_support import request_with_feedback
from toolcatalog.models import HypotheticalQuery, Tool
from usage import suggestions
from usage.models import Suggestion, SuggestionStatus

pytestmark = [pytest.mark.django_db]


def test_accept_after_reject_is_refused(admin_client_logged_in) -> None:
    Tool.objects.create(name="set_timer", description="Set a countdown timer")
    request_with_feedback("wake me in ten minutes", ["play_music"], [], missing=["set_timer"])
    suggestions.refresh_suggestions()
    pk = Suggestion.objects.get().pk
    admin_client_logged_in.post("/admin/suggestions/decide", {"reject": pk})
    response = admin_client_logged_in.post("/admin/suggestions/decide", {"accept": pk}, follow=True)
    assert "Already rejected" in response.content.decode()
    assert Suggestion.objects.get(pk=pk).status == SuggestionStatus.REJECTED
    assert not HypotheticalQuery.objects.exists()
