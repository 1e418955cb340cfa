"""Checks shared by every door into the catalog: admin forms, the API and imports.

Each message names the object and the field, so a person reading an import
report of 300 tools knows which one to fix.
"""
from __future__ import annotations

import re
from typing import Any

import jsonschema

NAME_PATTERN = re.compile(r"^[A-Za-z0-9_.\-]{1,128}$")
NAME_RULE = "letters, digits, '_', '-' and '.', at most 128 characters"


def name_error(kind: str, name: Any) -> str | None:
    if not isinstance(name, str) or not NAME_PATTERN.match(name):
        return f"{kind} {name!r}: name must be {NAME_RULE}."
    return None


def parameters_error(tool_name: str, parameters: Any) -> str | None:
    """None when `parameters` is a JSON Schema object a provider will accept."""
    if not isinstance(parameters, dict):
        return f"tool {tool_name!r}: parameters must be a JSON Schema object, got {type(parameters).__name__}."
    try:
        jsonschema.Draft202012Validator.check_schema(parameters)
    except jsonschema.SchemaError as exc:
        where = "/".join(str(p) for p in exc.path) or "(root)"
        return f"tool {tool_name!r}: parameters is not valid JSON Schema at {where}: {exc.message}"
    declared_type = parameters.get("type", "object")
    if declared_type != "object":
        return f"tool {tool_name!r}: parameters must have type 'object', got {declared_type!r}."
    return None


def keywords_error(kind: str, name: str, keywords: Any) -> str | None:
    if not isinstance(keywords, list) or not all(isinstance(k, str) for k in keywords):
        return f"{kind} {name!r}: keywords must be a list of strings."
    return None
