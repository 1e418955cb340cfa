"""Markup a curator or a client types (tool descriptions, hints, hypothetical queries, workflow
hints, embedding errors, queries) reaches the admin, "Try a query" and the dashboard as text.

tests/usage/test_usage_xss.py covers the dashboard's tables and charts from log records, and
tests/routing/test_try_query_page.py the query box; these are the other places."""
from __future__ import annotations

import re

import pytest

from tests.support.catalog import api_client
from toolcatalog.models import Category, HypotheticalQuery, Tool
from usage import services as usage

pytestmark = pytest.mark.django_db

SCRIPT = "<script>alert('s')</script>"
IMG = "<img src=x onerror=alert('i')>"
MARKUP = f"jazz {SCRIPT} {IMG}"


def assert_inert(html: str) -> None:
    """No script element and no element carrying an event handler came from our data."""
    assert "<script>alert(" not in html
    assert not re.search(r"<img[^>]*onerror", html, flags=re.IGNORECASE)


@pytest.fixture
def hostile_catalog() -> Tool:
    category = Category.objects.create(name="hostile", description=f"Category {MARKUP}",
                                       workflow_hint=f"**Workflow** {MARKUP}\n\n- step {SCRIPT}")
    tool = Tool.objects.create(name="hostile_tool", description=f"Plays music {MARKUP}", category=category,
                               usage_hint=f"Hint {MARKUP}", embedding_error=f"provider said {IMG}")
    HypotheticalQuery.objects.create(tool=tool, text=f"hostile query {MARKUP}")
    return tool


def test_admin_tool_list_and_search_show_markup_as_text(admin_client_logged_in, hostile_catalog) -> None:
    html = admin_client_logged_in.get("/admin/toolcatalog/tool/", {"q": MARKUP}).content.decode()
    assert_inert(html)
    html = admin_client_logged_in.get("/admin/toolcatalog/tool/").content.decode()
    assert "hostile_tool" in html
    assert_inert(html)


def test_admin_change_pages_show_markup_as_text(admin_client_logged_in, hostile_catalog) -> None:
    tool, category = hostile_catalog, hostile_catalog.category
    query = HypotheticalQuery.objects.get(tool=tool)
    for url in (f"/admin/toolcatalog/tool/{tool.pk}/change/", f"/admin/toolcatalog/category/{category.pk}/change/",
                f"/admin/toolcatalog/hypotheticalquery/{query.pk}/change/", "/admin/toolcatalog/hypotheticalquery/"):
        response = admin_client_logged_in.get(url)
        assert response.status_code == 200, url
        html = response.content.decode()
        assert_inert(html)
        assert "&lt;script&gt;" in html, url  # shown, as text


def test_try_a_query_shows_hints_guidance_and_matched_queries_as_text(admin_client_logged_in, hostile_catalog) -> None:
    response = admin_client_logged_in.get("/admin/try-query/", {
        "query": f"hostile query {MARKUP}", "strategy": "bm25", "mode": "top_k", "limit": 5, "format": "openai"})
    html = response.content.decode()
    assert "hostile_tool" in html
    assert "Hint jazz &lt;script&gt;" in html  # the usage hint, escaped
    guidance = html[html.index('class="guidance"'):]
    assert "<strong>Workflow</strong>" in guidance  # Markdown still renders, markup does not
    assert_inert(html)


def test_a_query_routed_through_the_api_shows_as_text_on_the_dashboard(settings, hostile_catalog, django_user_model,
                                                                        client) -> None:
    settings.USAGE_QUERY_STORAGE = "store"
    Category.objects.create(name="empty")  # routing inside it finds nothing: the query joins the curation list
    route_client = api_client(["route"], name="hostile-client")
    body = {"query": MARKUP, "strategy": "bm25", "categories": ["empty"], "include_core": False}
    assert route_client.post("/api/v1/route", body, format="json").json()["matches"] == []
    usage.drain_request_buffer()
    usage.prune_and_roll_up()
    client.force_login(django_user_model.objects.create_user("operator", password="pw", is_staff=True))
    html = client.get("/dashboard/", {"range": "24h"}).content.decode()
    curation = html[html.index('id="curation-table"'):]
    assert "jazz &lt;script&gt;" in curation
    assert_inert(html)
