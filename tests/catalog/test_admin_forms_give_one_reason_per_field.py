"""A field the admin form refuses shows the one real reason, not a second one the model's checks
make up from the field's empty default ("must not be empty", "tool ''")."""
import html
import re

import pytest
from django.test import Client

from toolcatalog.models import Category, Tool

pytestmark = pytest.mark.django_db

INLINE_EMPTY = {"hypothetical_queries-TOTAL_FORMS": "0", "hypothetical_queries-INITIAL_FORMS": "0"}


def _errors(client: Client, url: str, data: dict[str, str]) -> list[list[str]]:
    response = client.post(url, data)
    assert response.status_code == 200  # the form again
    lists = re.findall(r'<ul class="errorlist[^"]*"[^>]*>(.*?)</ul>', response.content.decode(), re.S)
    return [[html.unescape(item) for item in re.findall(r"<li>(.*?)</li>", found, re.S)] for found in lists]


def _add_tool(client: Client, **fields: str) -> list[list[str]]:
    data = {"name": "get_weather", "description": "Weather now", "parameters": "{}", "enabled": "on",
            **INLINE_EMPTY, **fields}
    return _errors(client, "/admin/toolcatalog/tool/add/", data)


def test_a_nul_in_the_description_is_the_only_reason_given(admin_client_logged_in) -> None:
    assert _add_tool(admin_client_logged_in, description="Weather\x00 now") == [["Null characters are not allowed."]]
    assert not Tool.objects.exists()


def test_a_name_too_long_is_refused_for_its_length_alone(admin_client_logged_in) -> None:
    errors = _add_tool(admin_client_logged_in, name="a" * 129)
    assert errors == [["Ensure this value has at most 128 characters (it has 129)."]]
    assert not any("tool ''" in message for found in errors for message in found)


def test_a_category_name_too_long_is_refused_for_its_length_alone(admin_client_logged_in) -> None:
    errors = _errors(admin_client_logged_in, "/admin/toolcatalog/category/add/", {"name": "m" * 129, "enabled": "on"})
    assert errors == [["Ensure this value has at most 128 characters (it has 129)."]]
    assert not Category.objects.exists()


def test_a_hypothetical_query_too_long_is_refused_for_its_length_alone(admin_client_logged_in) -> None:
    errors = _add_tool(admin_client_logged_in, **{
        "hypothetical_queries-TOTAL_FORMS": "1", "hypothetical_queries-0-text": "q" * 600,
        "hypothetical_queries-0-source": "curated", "hypothetical_queries-0-approved": "on"})
    assert errors == [["Ensure this value has at most 500 characters (it has 600)."]]
    assert not Tool.objects.exists()
