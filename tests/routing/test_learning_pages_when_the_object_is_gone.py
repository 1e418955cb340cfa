"""A button pressed on a suggestion or a catalog-doctor finding whose tool was deleted meanwhile
returns to the page with a message saying so, and changes nothing (not the API's JSON 404)."""
import pytest

from tests.usage.learning_support import request_with_feedback
from toolcatalog.models import HypotheticalQuery, Tool
from usage import suggestions
from usage.models import Suggestion

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fresh_usage_buffers")]


def test_accepting_the_suggestion_of_a_deleted_tool(admin_client_logged_in) -> None:
    tool = Tool.objects.create(name="set_timer", description="Set a countdown timer")
    request_with_feedback("wake me in ten minutes", ["play_music"], [], missing=["set_timer"])
    suggestions.refresh_suggestions()
    pk = Suggestion.objects.get().pk
    tool.delete()
    response = admin_client_logged_in.post("/admin/suggestions/decide", {"accept": pk}, follow=True)
    assert response.redirect_chain[-1][0] == "/admin/suggestions/"
    assert "This suggestion no longer exists" in response.content.decode()
    assert not HypotheticalQuery.objects.exists()


def test_relating_a_deleted_tool(admin_client_logged_in) -> None:
    kept = Tool.objects.create(name="send_email", description="Send an email")
    Tool.objects.create(name="send_mail", description="Send a mail").delete()
    response = admin_client_logged_in.post("/admin/catalog-doctor/relate", {"a": "send_email", "b": "send_mail"},
                                           follow=True)
    assert response.redirect_chain[-1][0] == "/admin/catalog-doctor/#confusable"
    assert "No tool is named &#x27;send_mail&#x27; any more" in response.content.decode()
    assert not kept.related_tools.exists()
