"""A logged-in staff browser cannot be made to write: the API takes only Bearer keys, and the
admin and dashboard refuse a POST without the CSRF token."""
from __future__ import annotations

import pytest
from django.test import Client

from api.models import ApiKey
from toolcatalog.models import HypotheticalQuery, Tool
from usage import services as usage
from usage.models import RequestLog

pytestmark = pytest.mark.django_db

PASSWORD = "pw-for-tests-only"
TOOL = {"name": "csrf_probe", "description": "Created by a forged request", "parameters": {"type": "object"}}


@pytest.fixture
def staff_browser(django_user_model) -> Client:
    """A superuser's browser session; CSRF is checked as in production (the test client skips it by default)."""
    django_user_model.objects.create_superuser(username="staff", password=PASSWORD)
    browser = Client(enforce_csrf_checks=True)
    assert browser.login(username="staff", password=PASSWORD)
    return browser


def csrf_token(browser: Client) -> str:
    browser.get("/admin/")  # sets the csrftoken cookie
    return browser.cookies["csrftoken"].value


@pytest.mark.usefixtures("fresh_usage_buffers")
@pytest.mark.parametrize("path, body", [
    ("/api/v1/tools", TOOL),
    ("/api/v1/catalog/import", {"format": "toolcatalog/v1", "categories": [], "tools": [TOOL]}),
    ("/api/v1/route", {"query": "play some jazz"}),
])
def test_the_api_ignores_the_session_cookie_with_or_without_csrf(staff_browser, path: str, body: dict) -> None:
    token = csrf_token(staff_browser)
    for headers in ({}, {"HTTP_X_CSRFTOKEN": token}):
        response = staff_browser.post(path, body, content_type="application/json", **headers)
        assert response.status_code in (401, 403), response.content
        assert response.json()["error"] in ("unauthenticated", "forbidden")
    assert not Tool.objects.filter(name="csrf_probe").exists()
    usage.drain_request_buffer()  # a routed request would be in the buffer, not yet in the table
    assert RequestLog.objects.count() == 0


def test_the_api_refuses_a_session_cookie_delete(staff_browser) -> None:
    tool = Tool.objects.create(name="keep_me", description="Must survive")
    response = staff_browser.delete(f"/api/v1/tools/{tool.name}")
    assert response.status_code in (401, 403)
    assert Tool.objects.filter(pk=tool.pk).exists()


def test_admin_post_without_csrf_is_403_and_changes_nothing(staff_browser) -> None:
    response = staff_browser.post("/admin/toolcatalog/tool/add/", {"name": "csrf_probe", "description": "x"})
    assert response.status_code == 403
    response = staff_browser.post("/admin/api/apikey/add/", {"name": "forged-key", "scopes": "catalog"})
    assert response.status_code == 403
    assert not Tool.objects.filter(name="csrf_probe").exists() and not ApiKey.objects.exists()


def test_dashboard_post_without_csrf_is_403(staff_browser) -> None:
    Tool.objects.create(name="safe_tool", description="A tool")
    response = staff_browser.post("/dashboard/curation/add", {"query": "forged", "tool": "safe_tool"})
    assert response.status_code == 403
    assert not HypotheticalQuery.objects.filter(text="forged").exists()


def test_with_the_token_the_admin_post_goes_through(staff_browser) -> None:
    """The refusals above are CSRF, not something else: the same POST with the token works."""
    token = csrf_token(staff_browser)
    response = staff_browser.post("/admin/toolcatalog/tool/add/", {"csrfmiddlewaretoken": token, "name": "csrf_probe"})
    assert response.status_code in (200, 302)  # 200 re-shows the form if a field is missing; not 403
