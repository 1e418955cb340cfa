"""A `$ref` in a tool's parameters must point inside them (a provider is sent them alone): one that
points nowhere, or to another document, is refused at every door with its path; refs that
resolve (`#/$defs/x`, `#/definitions/x`, `#` recursion, an `$anchor`) are kept."""
from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import Client

from tests.support.catalog import api_client
from toolcatalog import services
from toolcatalog.models import Tool

pytestmark = pytest.mark.django_db

INLINE_EMPTY = {"hypothetical_queries-TOTAL_FORMS": "0", "hypothetical_queries-INITIAL_FORMS": "0"}
DANGLING = {"type": "object", "properties": {"a": {"$ref": "#/$defs/missing"}}}
DANGLING_FAULT = "parameters/properties/a/$ref: #/$defs/missing points to nothing in this schema."

REFUSED = {
    "missing $defs entry": (DANGLING, DANGLING_FAULT),
    "missing definitions entry": (
        {"type": "object", "definitions": {"x": {}}, "properties": {"a": {"items": {"$ref": "#/definitions/y"}}}},
        "parameters/properties/a/items/$ref: #/definitions/y points to nothing"),
    "dangling ref inside $defs": (
        {"type": "object", "$defs": {"x": {"anyOf": [{"$ref": "#/$defs/gone"}]}}, "properties": {}},
        "parameters/$defs/x/anyOf/0/$ref: #/$defs/gone points to nothing"),
    "unknown anchor": ({"type": "object", "properties": {"a": {"$ref": "#place"}}},
                       "#place points to nothing in this schema"),
    "not a schema": ({"type": "object", "properties": {"a": {"type": "string", "description": "A"},
                                                       "b": {"$ref": "#/properties/a/description"}}},
                     "parameters/properties/b/$ref: #/properties/a/description points to a string, not a schema."),
    "remote": ({"type": "object", "properties": {"a": {"$ref": "https://example.com/schemas/a.json"}}},
               "parameters/properties/a/$ref: https://example.com/schemas/a.json points outside this schema"),
    "relative file": ({"type": "object", "properties": {"a": {"$ref": "a.json#/x"}}}, "a.json#/x points outside"),
}

ACCEPTED = {
    "$defs": {"type": "object", "$defs": {"unit": {"enum": ["C", "F"]}},
              "properties": {"unit": {"$ref": "#/$defs/unit"}}},
    "definitions": {"type": "object", "definitions": {"unit~/x": {"enum": ["C", "F"]}},
                    "properties": {"unit": {"$ref": "#/definitions/unit~0~1x"}}},
    "recursion": {"type": "object", "properties": {"name": {"type": "string"},
                                                   "children": {"type": "array", "items": {"$ref": "#"}}}},
    "anchor": {"type": "object", "$defs": {"u": {"$anchor": "unit", "enum": ["C", "F"]}},
               "properties": {"unit": {"$ref": "#unit"}}},
    "a $ref that is data": {"type": "object", "properties": {"p": {"type": "object",
                                                                   "examples": [{"$ref": "#/nowhere"}]}}},
}


def _admin_add(client: Client, parameters: dict[str, Any]) -> int:
    response = client.post("/admin/toolcatalog/tool/add/", {
        "name": "get_weather", "description": "Weather now", "parameters": json.dumps(parameters), "enabled": "on",
        **INLINE_EMPTY})
    return response.status_code


def _preview_fault(client: Client, parameters: dict[str, Any]) -> dict[str, Any] | None:
    response = client.post("/admin/toolcatalog/tool/definition-preview/", {
        "name": "get_weather", "description": "Weather now", "parameters": json.dumps(parameters)})
    assert response.status_code == 200
    return response.json()["fault"]


@pytest.mark.parametrize("parameters, fault", REFUSED.values(), ids=REFUSED.keys())
def test_the_admin_form_and_its_check_as_you_type_refuse_it(admin_client_logged_in, parameters: dict[str, Any],
                                                              fault: str) -> None:
    assert _admin_add(admin_client_logged_in, parameters) == 200  # the form again, with the fault
    assert not Tool.objects.exists()
    found = _preview_fault(admin_client_logged_in, parameters)
    assert found is not None and fault in found["message"]


def test_the_check_as_you_type_places_the_fault_on_the_ref(admin_client_logged_in) -> None:
    text = '{\n  "type": "object",\n  "properties": {\n    "a": {"$ref": "#/$defs/missing"}\n  }\n}'
    response = admin_client_logged_in.post("/admin/toolcatalog/tool/definition-preview/", {
        "name": "get_weather", "description": "Weather now", "parameters": text})
    fault = response.json()["fault"]
    assert (fault["line"], fault["column"], fault["path"]) == (4, 19, "properties/a/$ref")


@pytest.mark.parametrize("parameters, fault", REFUSED.values(), ids=REFUSED.keys())
def test_the_api_refuses_it_on_create_and_on_patch(parameters: dict[str, Any], fault: str) -> None:
    client = api_client(["catalog"], name="writer")
    created = client.post("/api/v1/tools", {"name": "get_weather", "description": "x", "parameters": parameters},
                          format="json")
    assert created.status_code == 400 and fault in created.json()["message"]
    assert not Tool.objects.exists()
    client.post("/api/v1/tools", {"name": "get_weather", "description": "x"}, format="json")
    patched = client.patch("/api/v1/tools/get_weather", {"parameters": parameters}, format="json")
    assert patched.status_code == 400 and fault in patched.json()["message"]
    assert Tool.objects.get().parameters == {"type": "object", "properties": {}}


def test_an_import_rejects_that_tool_and_keeps_the_others() -> None:
    report = services.import_any({"format": "toolcatalog/v1", "tools": [
        {"name": "bad_tool", "description": "x", "parameters": DANGLING},
        {"name": "good_tool", "description": "y"}]})
    assert report["created"] == ["good_tool"]
    [rejected] = report["rejected"]
    assert rejected["name"] == "bad_tool" and DANGLING_FAULT in rejected["reason"]


@pytest.mark.parametrize("parameters", ACCEPTED.values(), ids=ACCEPTED.keys())
def test_refs_that_resolve_are_accepted_at_every_door(admin_client_logged_in, parameters: dict[str, Any]) -> None:
    assert _preview_fault(admin_client_logged_in, parameters) is None
    assert _admin_add(admin_client_logged_in, parameters) == 302
    assert Tool.objects.get(name="get_weather").parameters == parameters
    created = api_client(["catalog"], name="writer").post(
        "/api/v1/tools", {"name": "set_weather", "description": "x", "parameters": parameters}, format="json")
    assert created.status_code == 201, created.content
    report = services.import_any({"format": "toolcatalog/v1", "tools": [
        {"name": "imported_tool", "description": "x", "parameters": parameters}]})
    assert report["created"] == ["imported_tool"]
