"""Checks shared by every door into the catalog: admin forms, the API and imports.

Each message names the object and the field, so a person reading an import
report of 300 tools knows which one to fix.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.conf import settings

from engine import CATALOG_NAME_RULE, is_catalog_name
from shared.storable_text import UNSTORABLE, describe, first_match_in_strings

from .interchange.schemas import meta_schema_error, unresolvable_ref


def name_error(kind: str, name: Any) -> str | None:
    """The one name rule (engine/names.py), which every export relies on."""
    if not is_catalog_name(name):
        return f"{kind} {name!r}: name must be {CATALOG_NAME_RULE}."
    return None


def text_error(kind: str, name: Any, field: str, value: Any) -> str | None:
    limit = settings.CATALOG_MAX_TEXT_CHARS
    if isinstance(value, str) and len(value) > limit:
        return f"{kind} {name!r}: {field} is {len(value):,} characters long; at most {limit:,} (CATALOG_MAX_TEXT_CHARS)."
    return unstorable_error(kind, name, field, value)


def unstorable_error(kind: str, name: Any, field: str, value: Any) -> str | None:
    """The first text in `value` (a string, or any JSON: keys too) the database cannot hold, named by its path."""
    found = first_match_in_strings(value, UNSTORABLE)
    if found is None:
        return None
    path, char = found
    return f"{kind} {name!r}: {'/'.join([field, *path])} contains {describe(char)}, which the catalog cannot store."


@dataclass(frozen=True)
class SchemaProblem:
    """What is wrong with a tool's parameters, and where (a path of keys and indexes into them)."""

    path: tuple[str | int, ...]
    message: str

    @property
    def where(self) -> str:
        return "/".join(str(p) for p in self.path) or "(root)"


def parameters_problem(parameters: Any) -> SchemaProblem | None:
    """None when `parameters` is a JSON Schema object a provider will accept, checked against its
    own `$schema` dialect (2020-12 when none is named) as the exports check it, whose every
    `$ref` points inside it."""
    if not isinstance(parameters, dict):
        return SchemaProblem((), f"parameters must be a JSON Schema object, got {type(parameters).__name__}.")
    if not isinstance(parameters.get("$schema", ""), str):  # jsonschema fails on it with an AttributeError
        return SchemaProblem(("$schema",), f"parameters' $schema must be a URI string, got "
                                           f"{type(parameters['$schema']).__name__}.")
    error = meta_schema_error(parameters)
    if error is not None:
        path = tuple(error.path)
        where = "/".join(str(p) for p in path) or "(root)"
        return SchemaProblem(path, f"parameters is not valid JSON Schema at {where}: {error.message}")
    declared_type = parameters.get("type", "object")
    if declared_type != "object":
        return SchemaProblem(("type",), f"parameters must have type 'object', got {declared_type!r}.")
    # The meta-schema takes any string as a $ref: one that points nowhere is only found by a
    # provider refusing the schema, or by a model reading a schema that says nothing.
    dangling = unresolvable_ref(parameters)
    if dangling is not None:
        path, why = dangling
        return SchemaProblem(path, f"{'/'.join(str(p) for p in ('parameters', *path))}: {why}")
    return None


def parameters_error(tool_name: str, parameters: Any) -> str | None:
    """None when `parameters` is a JSON Schema object a provider will accept; else the fault, naming the tool."""
    problem = parameters_problem(parameters)
    return None if problem is None else f"tool {tool_name!r}: {problem.message}"


def keywords_error(kind: str, name: str, keywords: Any) -> str | None:
    if not isinstance(keywords, list) or not all(isinstance(k, str) for k in keywords):
        return f"{kind} {name!r}: keywords must be a list of strings."
    return None
