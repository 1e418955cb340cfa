"""Feedback for a request that may still wait in Redis, or in another web process while Redis is
down, is a retryable 503, not a 404 that tells the client to give up: once Redis is back, the same
feedback is recorded. With Redis up, a request that is nowhere stays a 404."""
from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import Client

from api.models import ApiKey
from api.services import create_api_key
from shared.redis_client import get_redis
from usage import services as usage
from usage.models import Feedback

from .records import make_record

pytestmark = [pytest.mark.django_db]

DEAD_REDIS = "redis://127.0.0.1:1/15"  # nothing listens there


@pytest.fixture
def agent() -> tuple[ApiKey, dict[str, str]]:
    key, raw = create_api_key("feedback-agent", scopes=["route"])
    return key, {"HTTP_AUTHORIZATION": f"Bearer {raw}"}


def _send_feedback(client: Client, headers: dict[str, str], request_id: str) -> Any:
    return client.post("/api/v1/feedback", {"request_id": request_id, "used_tools": ["play_music"]},
                       content_type="application/json", **headers)


def _point_redis_at(settings, url: str) -> None:
    settings.REDIS_URL, settings.USAGE_REDIS_RETRY_SECONDS = url, 0
    get_redis.cache_clear()


def test_feedback_while_redis_is_down_is_a_503_to_retry_and_lands_once_redis_is_back(client, settings, agent) -> None:
    key, headers = agent
    live_redis = settings.REDIS_URL
    _point_redis_at(settings, DEAD_REDIS)

    response = _send_feedback(client, headers, "held-elsewhere")

    assert response.status_code == 503
    assert response["Retry-After"] == "1"
    assert response.json() == {
        "error": "request_log_unavailable",
        "message": "The request log cannot be read right now, so this request_id cannot be looked up; "
                   "send the feedback again shortly.",
        "details": {"request_id": "held-elsewhere", "retry_after_seconds": 1},
    }
    assert not Feedback.objects.exists()

    _point_redis_at(settings, live_redis)  # the other web process hands its records to Redis again
    usage.record_request(make_record(request_id="held-elsewhere", api_key_id=key.pk, client=key.name))
    retried = _send_feedback(client, headers, "held-elsewhere")
    assert retried.status_code == 200
    assert Feedback.objects.get(request_id="held-elsewhere").used_tools == ["play_music"]


def test_feedback_for_a_request_this_process_holds_is_recorded_while_redis_is_down(client, settings, agent) -> None:
    key, headers = agent
    _point_redis_at(settings, DEAD_REDIS)
    usage.record_request(make_record(request_id="held-here", api_key_id=key.pk, client=key.name))

    assert _send_feedback(client, headers, "held-here").status_code == 200
    assert Feedback.objects.filter(request_id="held-here").exists()


def test_feedback_for_a_request_that_is_nowhere_is_a_404_while_redis_is_up(client, agent) -> None:
    _, headers = agent
    response = _send_feedback(client, headers, "never-made")
    assert response.status_code == 404
    assert response.json()["error"] == "unknown_request"


def test_the_503_and_its_retry_after_are_declared(client) -> None:
    schema = json.loads(client.get("/api/schema/", HTTP_ACCEPT="application/json").content)
    declared = schema["paths"]["/api/v1/feedback"]["post"]["responses"]["503"]
    assert "Retry-After" in declared["headers"]


def test_another_keys_request_reads_as_one_made_by_no_one_while_redis_is_down(client, settings, agent) -> None:
    """A key must not learn whether another key's request exists: its id gets what a random id gets."""
    _, headers = agent
    other, _ = create_api_key("other-agent", scopes=["route"])
    usage.record_request(make_record(request_id="theirs", api_key_id=other.pk, client=other.name))
    usage.drain_request_buffer()  # in the database: found at once, without reading Redis
    _point_redis_at(settings, DEAD_REDIS)
    theirs, nobodys = _send_feedback(client, headers, "theirs"), _send_feedback(client, headers, "nobodys")
    assert (theirs.status_code, nobodys.status_code) == (503, 503)
    assert theirs.json()["error"] == nobodys.json()["error"] == "request_log_unavailable"
