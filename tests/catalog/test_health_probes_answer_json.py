"""Health probes answer JSON whatever reaches them: a POST is a 405 naming GET, not a CSRF page,
and a stray trailing slash a JSON 404, not the debug page that lists every URL pattern."""
from __future__ import annotations

import pytest
from django.test import Client


@pytest.mark.parametrize("path", ["/healthz", "/readyz"])
def test_a_post_is_a_json_405(db, path) -> None:
    response = Client(enforce_csrf_checks=True).post(path)
    assert response.status_code == 405
    assert response.json()["error"] == "method_not_allowed" and "GET" in response["Allow"]


@pytest.mark.parametrize("path", ["/healthz/", "/readyz/"])
def test_a_trailing_slash_is_a_json_404(db, settings, path) -> None:
    settings.DEBUG = True
    response = Client().get(path)
    assert response.status_code == 404 and response["Content-Type"].startswith("application/json")
