"""Turn bytes or text into plain JSON-like data (dicts, lists, scalars).

JSON is tried first because it is what most tool lists are; anything else is
read as YAML (OpenAPI specs usually are).  YAML is loaded so that the result
is JSON-compatible: dates stay strings and mapping keys become strings
(``200:`` in an OpenAPI ``responses`` block is an int otherwise).
"""

from __future__ import annotations

import json
from typing import Any

import yaml

from .errors import InterchangeError


class _JsonCompatibleLoader(yaml.SafeLoader):
    """SafeLoader without the timestamp resolver, so dates load as strings."""


_JsonCompatibleLoader.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


def _stringify_keys(value: Any) -> Any:
    if isinstance(value, dict):
        return {_key(k): _stringify_keys(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_stringify_keys(v) for v in value]
    return value


def _key(key: Any) -> str:
    if isinstance(key, bool):
        return "true" if key else "false"
    return "null" if key is None else str(key)


def _preview(text: str) -> str:
    snippet = " ".join(text.strip().split())[:60]
    return f"{snippet}..." if len(text.strip()) > 60 else snippet


def load_document(data: str | bytes) -> Any:
    """Parse text as JSON, else as YAML; raise InterchangeError if neither."""
    if isinstance(data, bytes):
        try:
            data = data.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise InterchangeError(f"the file is not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    text = data.lstrip("\ufeff")
    if not text.strip():
        raise InterchangeError("the document is empty")
    if text.lstrip().startswith("<"):
        raise InterchangeError(
            f"this looks like an HTML or XML page, not a tool catalog (it starts with {_preview(text)!r}); "
            "expected JSON or YAML"
        )
    try:
        return json.loads(text)
    except json.JSONDecodeError as json_error:
        if text.lstrip()[:1] in "{[":
            raise InterchangeError(
                f"invalid JSON: {json_error.msg} at line {json_error.lineno}, column {json_error.colno}"
            ) from None
    try:
        loaded = yaml.load(text, Loader=_JsonCompatibleLoader)  # noqa: S506 - SafeLoader subclass
    except yaml.YAMLError as yaml_error:
        mark = getattr(yaml_error, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = getattr(yaml_error, "problem", None) or "syntax error"
        raise InterchangeError(f"the document is neither JSON nor YAML: {problem}{where}") from None
    if not isinstance(loaded, (dict, list)):
        raise InterchangeError(
            f"expected a JSON or YAML object or list at the top level; found plain text {_preview(text)!r}"
        )
    return _stringify_keys(loaded)
