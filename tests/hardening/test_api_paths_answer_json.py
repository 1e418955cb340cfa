"""API paths answer JSON in every mode, development included: an unknown /api/... path is a 404
JSON (not Django's debug page listing every URL pattern), and a POST to a path missing its trailing
slash is a 404 JSON (not a 500 debug page showing the settings); a GET is still redirected."""
from __future__ import annotations

import json

import pytest

pytestmark = pytest.mark.django_db


@pytest.fixture(params=[True, False], ids=["debug", "production"])
def mode(request, settings):
    settings.DEBUG = request.param
    return request.param


@pytest.mark.parametrize("method, path", [
    ("get", "/api/v1/no-such-thing"), ("post", "/api/v1/no-such-thing"), ("get", "/api/nothing"),
    ("get", "/v1/nothing"), ("post", "/api/v1/route/extra"), ("get", "/api"),
    ("post", "/admin"), ("post", "/api/schema"), ("put", "/dashboard"),
])
def test_unknown_paths_and_missing_slashes_answer_json_404(client, mode, method, path) -> None:
    response = getattr(client, method)(path)
    assert response.status_code == 404, response.content[:300]
    assert response["Content-Type"] == "application/json"
    body = response.json()
    assert body["error"] == "not_found"
    text = response.content.decode()
    assert "urlpatterns" not in text and "DATABASE" not in text and "REDIS" not in text


def test_a_get_without_the_slash_is_still_redirected(client, mode) -> None:
    response = client.get("/admin")
    assert response.status_code == 301 and response["Location"] == "/admin/"


def test_a_method_an_endpoint_does_not_take_is_a_405_json(client, mode) -> None:
    response = client.post("/api/schema/")
    assert response.status_code == 405
    assert json.loads(response.content)["error"] == "method_not_allowed"
