"""With the worker down, the request log piles up in Redis. Feedback for the request just routed
must still find it: its record is the newest, behind tens of thousands of older ones."""
import pytest

from api.services import create_api_key
from usage import services as usage
from usage.models import Feedback

from .records import make_record

pytestmark = [pytest.mark.django_db]

BACKLOG = 30_000  # more than one drain (5,000) and the buffer scan (20,000) together


def _pile_up_backlog() -> None:
    for i in range(BACKLOG):
        usage.record_request(make_record(request_id=f"old-{i}"))


def test_feedback_for_the_newest_request_behind_a_backlog_is_recorded(client) -> None:
    key, raw = create_api_key("agent-one", scopes=["route"])
    _pile_up_backlog()
    usage.record_request(make_record(request_id="newest", api_key_id=key.pk, client=key.name))
    response = client.post("/api/v1/feedback", {"request_id": "newest", "used_tools": ["play_music"]},
                           content_type="application/json", HTTP_AUTHORIZATION=f"Bearer {raw}")
    assert response.status_code == 200, response.content
    assert response.json()["offered_and_used"] == ["play_music"]
    assert Feedback.objects.get(request_id="newest").used_tools == ["play_music"]
