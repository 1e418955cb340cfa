"""A new tool's parameters editor starts with what saving it untouched stores, and no fault."""
import html
import json
import re

import pytest

from toolcatalog.models import Tool

pytestmark = pytest.mark.django_db

EMPTY_SCHEMA = {"type": "object", "properties": {}}


def _editor_text(page: str) -> str:
    textarea = re.search(r'<textarea name="parameters"[^>]*>(.*?)</textarea>', page, re.S)
    assert textarea is not None
    return html.unescape(textarea.group(1)).strip()


def test_the_add_form_starts_with_an_empty_object_schema(admin_client_logged_in) -> None:
    page = admin_client_logged_in.get("/admin/toolcatalog/tool/add/").content.decode()
    assert json.loads(_editor_text(page)) == EMPTY_SCHEMA
    assert "errorlist" not in page


def test_the_starting_text_checks_clean_and_saves_as_shown(admin_client_logged_in) -> None:
    page = admin_client_logged_in.get("/admin/toolcatalog/tool/add/").content.decode()
    text = _editor_text(page)
    preview = admin_client_logged_in.post("/admin/toolcatalog/tool/definition-preview/", {
        "name": "get_weather", "description": "Weather now", "parameters": text}).json()
    assert preview["fault"] is None
    response = admin_client_logged_in.post("/admin/toolcatalog/tool/add/", {
        "name": "get_weather", "description": "Weather now", "parameters": text, "enabled": "on",
        "hypothetical_queries-TOTAL_FORMS": "0", "hypothetical_queries-INITIAL_FORMS": "0"})
    assert response.status_code == 302
    assert Tool.objects.get(name="get_weather").parameters == EMPTY_SCHEMA


def test_a_blank_editor_checks_as_what_saving_stores(admin_client_logged_in) -> None:
    preview = admin_client_logged_in.post("/admin/toolcatalog/tool/definition-preview/", {
        "name": "get_weather", "description": "Weather now", "parameters": "  "}).json()
    assert preview["fault"] is None
    assert json.loads(preview["definitions"]["toolcatalog/v1"])["parameters"] == EMPTY_SCHEMA
