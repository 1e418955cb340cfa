"""POST /api/v1/feedback through the real endpoint, with real API keys."""
import pytest

from api.services import create_api_key
from toolcatalog.models import Tool
from usage import services as usage
from usage.models import Feedback

from .records import make_record

pytestmark = [pytest.mark.django_db]

OFFERED = [{"name": "play_music", "rank": 1, "score": 0.9}, {"name": "search_music", "rank": 2, "score": 0.6},
           {"name": "get_artist_info", "rank": 3, "score": 0.4}]


@pytest.fixture
def route_key():
    key, raw = create_api_key("agent-one", scopes=["route"])
    return key, {"HTTP_AUTHORIZATION": f"Bearer {raw}"}


def _post(client, headers, body):
    return client.post("/api/v1/feedback", body, content_type="application/json", **headers)


def _logged(key, request_id: str = "req-1", drain: bool = True) -> None:
    usage.record_request(make_record(request_id=request_id, api_key_id=key.pk, client=key.name, results=OFFERED))
    if drain:
        usage.drain_request_buffer()


def test_feedback_splits_offered_used_unused_and_missed(client, route_key) -> None:
    key, headers = route_key
    _logged(key)
    response = _post(client, headers, {"request_id": "req-1", "used_tools": ["play_music", "set_timer"], "success": True})
    assert response.status_code == 200
    assert response.json() == {"recorded": True, "offered_and_used": ["play_music"],
                               "offered_unused": ["search_music", "get_artist_info"], "missed": ["set_timer"]}
    feedback = Feedback.objects.get(request_id="req-1")
    assert (feedback.api_key_id, feedback.success, feedback.used_tools) == (key.pk, True, ["play_music", "set_timer"])


def test_feedback_for_a_request_still_in_the_buffer_is_accepted(client, route_key) -> None:
    key, headers = route_key
    _logged(key, "buffered", drain=False)
    response = _post(client, headers, {"request_id": "buffered", "used_tools": ["search_music"]})
    assert response.status_code == 200
    assert response.json()["offered_and_used"] == ["search_music"]
    assert Feedback.objects.get(request_id="buffered").success is None


def test_provider_safe_names_are_mapped_back_to_catalog_names(client, route_key) -> None:
    key, headers = route_key
    Tool.objects.create(name="github.search", description="Search GitHub")
    usage.record_request(make_record(request_id="dotted", api_key_id=key.pk,
                                     results=[{"name": "github.search", "rank": 1, "score": 0.8}]))
    response = _post(client, headers, {"request_id": "dotted", "used_tools": ["github__search"], "success": True})
    assert response.json()["offered_and_used"] == ["github.search"]
    assert response.json()["missed"] == []


def test_a_second_report_replaces_the_first(client, route_key) -> None:
    key, headers = route_key
    _logged(key)
    _post(client, headers, {"request_id": "req-1", "used_tools": ["play_music"], "success": False})
    _post(client, headers, {"request_id": "req-1", "used_tools": ["search_music"], "success": True})
    feedback = Feedback.objects.get(request_id="req-1")
    assert (feedback.used_tools, feedback.success) == (["search_music"], True)


def test_an_unknown_request_is_404(client, route_key) -> None:
    _, headers = route_key
    response = _post(client, headers, {"request_id": "nope", "used_tools": [], "success": True})
    assert response.status_code == 404
    assert response.json()["error"] == "unknown_request"


def test_another_keys_request_is_404_too(client, route_key) -> None:
    key, _ = route_key
    _logged(key)
    _, other_raw = create_api_key("agent-two", scopes=["route"])
    response = _post(client, {"HTTP_AUTHORIZATION": f"Bearer {other_raw}"},
                     {"request_id": "req-1", "used_tools": ["play_music"]})
    assert response.status_code == 404
    assert not Feedback.objects.exists()


@pytest.mark.parametrize("body", [
    {"request_id": "req-1", "used_tools": ["play_music"], "sucess": True},
    {"request_id": "req-1"},
    {"request_id": "req-1", "used_tools": "play_music"},
    {"request_id": "req-1", "used_tools": ["play_music"], "success": "maybe"},
    ["req-1"],
])
def test_invalid_bodies_are_400_in_the_spec_error_shape(client, route_key, body) -> None:
    key, headers = route_key
    _logged(key)
    response = _post(client, headers, body)
    assert response.status_code == 400
    assert set(response.json()) == {"error", "message", "details"}


def test_a_key_without_the_route_scope_is_refused(client) -> None:
    _, raw = create_api_key("catalog-only", scopes=["catalog"])
    response = _post(client, {"HTTP_AUTHORIZATION": f"Bearer {raw}"}, {"request_id": "x", "used_tools": []})
    assert response.status_code == 403


def test_no_key_is_401(client) -> None:
    assert _post(client, {}, {"request_id": "x", "used_tools": []}).status_code == 401
