"""A tool whose parameters are a large schema (1.7 MB: 16,000 described properties) is saved, and
the check that makes that quick refuses what JSON Schema's published meta-schema refuses, at the
same place with the same words."""
from __future__ import annotations

import copy
import json
from typing import Any

import jsonschema
import pytest

from toolcatalog import validation
from toolcatalog.models import Tool

pytestmark = pytest.mark.django_db

INLINE_EMPTY = {"hypothetical_queries-TOTAL_FORMS": "0", "hypothetical_queries-INITIAL_FORMS": "0"}


def wide_schema(count: int) -> dict[str, Any]:
    return {"type": "object", "properties": {
        f"field_{i:05d}": {"type": "string", "description": f"The value of field number {i}, as the caller gives it."}
        for i in range(count)}}


def test_the_admin_saves_a_tool_with_a_large_parameters_schema(admin_client_logged_in) -> None:
    schema = wide_schema(16_000)
    text = json.dumps(schema)
    assert len(text) > 1_700_000
    response = admin_client_logged_in.post("/admin/toolcatalog/tool/add/", {
        "name": "big_form", "description": "Fills a very large form.", "parameters": text, "enabled": "on",
        **INLINE_EMPTY})
    assert response.status_code == 302
    assert Tool.objects.get(name="big_form").parameters == schema


FAULTS = {  # a path into wide_schema(3) and the value put there
    "bad type name": (("properties", "field_00001", "type"), "integr"),
    "property not a schema": (("properties", "field_00002"), "x"),
    "negative length": (("properties", "field_00001", "maxLength"), -1),
    "empty allOf": (("properties", "field_00000", "allOf"), []),
    "nested items": (("properties", "field_00000", "items"), {"properties": {"a": {"minimum": "1"}}}),
    "bad regex": (("properties", "field_00001", "pattern"), "("),
    "bad pattern key": (("patternProperties",), {"[": {}}),
    "required not strings": (("required",), [1]),
    "repeated required": (("required",), ["a", "a"]),
    "definitions entry": (("definitions",), {"d": 3}),
    "dependencies entry": (("dependencies",), {"d": [1]}),
    "$defs entry": (("$defs",), {"d": {"type": ["string", "string"]}}),
    "recursiveRef": (("$recursiveRef",), 5),
    "bad anchor": (("$defs",), {"d": {"$anchor": "1 no"}}),
    "content schema": (("properties", "field_00000", "contentSchema"), {"type": 2}),
    "unevaluated": (("unevaluatedProperties",), {"enum": 1}),
}


def _with(schema: dict[str, Any], path: tuple[str, ...], value: Any) -> dict[str, Any]:
    schema = copy.deepcopy(schema)
    node = schema
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    return schema


def _published_verdict(schema: dict[str, Any]) -> str:
    with pytest.raises(jsonschema.SchemaError) as refused:
        jsonschema.Draft202012Validator.check_schema(schema)
    where = "/".join(str(p) for p in refused.value.path) or "(root)"
    return f"parameters is not valid JSON Schema at {where}: {refused.value.message}"


@pytest.mark.parametrize("path, value", FAULTS.values(), ids=FAULTS.keys())
def test_the_check_refuses_what_the_published_meta_schema_refuses(path: tuple[str, ...], value: Any) -> None:
    schema = _with(wide_schema(3), path, value)
    problem = validation.parameters_problem(schema)
    assert problem is not None and problem.message == _published_verdict(schema)
