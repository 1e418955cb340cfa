"""Parameters text every JSON door refuses is a form error in the tool form, and the same fault in
the editor's check as you type: never a 500, never "Valid JSON Schema.", nothing stored."""
import html
import re

import pytest
from django.test import Client

from toolcatalog.models import Tool

pytestmark = pytest.mark.django_db

ADD_URL = "/admin/toolcatalog/tool/add/"
PREVIEW_URL = "/admin/toolcatalog/tool/definition-preview/"
INLINE_EMPTY = {"hypothetical_queries-TOTAL_FORMS": "0", "hypothetical_queries-INITIAL_FORMS": "0"}
OPEN = '{"type": "object", "properties": {}, '
SCHEMA_LEVEL = '{"type": "object", "properties": {"p": '

REFUSED = {
    "NaN": (OPEN + '"default": NaN}', "not valid JSON: NaN is not a JSON value"),
    "Infinity": (OPEN + '"default": 1e400}', "not valid JSON: the number 1e400 is too large for a float"),
    "deep arrays": (OPEN + '"x": ' + "[" * 100_000, "nested deeper than 64 levels"),
    "deep schema": (SCHEMA_LEVEL * 3000 + "{}" + "}}" * 3000, "nested deeper than 64 levels"),
    "lone surrogate": ('{"type": "object", "properties": {"a": {"type": "string", "description": "\\ud800"}}}',
                       "an unpaired surrogate (U+D800)"),
}


def _form_errors(page: str) -> list[str]:
    return [html.unescape(item) for item in re.findall(r'<ul class="errorlist[^"]*"[^>]*>(.*?)</ul>', page, re.S)]


def _add(client: Client, parameters: str) -> list[str]:
    response = client.post(ADD_URL, {"name": "get_weather", "description": "Weather now", "parameters": parameters,
                                     "enabled": "on", **INLINE_EMPTY})
    assert response.status_code == 200  # the form again, with its error
    assert not Tool.objects.exists()
    return _form_errors(response.content.decode())


def _preview_fault(client: Client, parameters: str) -> dict | None:
    response = client.post(PREVIEW_URL, {"name": "get_weather", "description": "Weather now",
                                         "parameters": parameters})
    assert response.status_code == 200
    return response.json()["fault"]


@pytest.mark.parametrize("parameters, reason", REFUSED.values(), ids=REFUSED.keys())
def test_the_form_refuses_the_text_naming_the_reason(admin_client_logged_in, parameters: str, reason: str) -> None:
    errors = _add(admin_client_logged_in, parameters)
    assert len(errors) == 1 and reason in errors[0]


@pytest.mark.parametrize("parameters, reason", REFUSED.values(), ids=REFUSED.keys())
def test_the_check_as_you_type_gives_the_same_reason(admin_client_logged_in, parameters: str, reason: str) -> None:
    fault = _preview_fault(admin_client_logged_in, parameters)
    assert fault is not None and reason in fault["message"]


def test_a_key_given_twice_is_refused_where_it_is_given(admin_client_logged_in) -> None:
    text = '{"type": "object",\n "properties": {"a": {},\n                "a": {"type": "string"}}}'
    errors = _add(admin_client_logged_in, text)
    assert len(errors) == 1 and "Line 3, column 22: the key 'a' is given twice in one object" in errors[0]
    fault = _preview_fault(admin_client_logged_in, text)
    assert fault is not None and (fault["line"], fault["column"]) == (3, 22)
    assert "the key 'a' is given twice" in fault["message"]


def test_a_refused_text_is_shown_back_as_typed(admin_client_logged_in) -> None:
    text = REFUSED["lone surrogate"][0]
    page = admin_client_logged_in.post(ADD_URL, {"name": "get_weather", "description": "Weather now",
                                                 "parameters": text, "enabled": "on", **INLINE_EMPTY}).content.decode()
    textarea = re.search(r'<textarea name="parameters"[^>]*>(.*?)</textarea>', page, re.S)
    assert textarea and html.unescape(textarea.group(1)).strip() == text
