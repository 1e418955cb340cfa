"""Turn bytes or text into plain JSON-like data (dicts, lists, scalars).

JSON is tried first because it is what most tool lists are; anything else is
read as YAML (OpenAPI specs usually are).  YAML is loaded so that the result
is JSON-compatible: dates stay strings and mapping keys become strings
(``200:`` in an OpenAPI ``responses`` block is an int otherwise).
"""

from __future__ import annotations

from typing import Any

import yaml

from shared.json_input import JsonInputError, loads

from .errors import InterchangeError
from .limits import DocumentLimits, LimitExceeded


class _JsonCompatibleLoader(yaml.SafeLoader):
    """SafeLoader without the timestamp resolver, so dates load as strings."""


_JsonCompatibleLoader.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


class _LimitedLoader(_JsonCompatibleLoader):
    """Counts while composing, before anything is expanded: nesting depth, alias uses, and each
    node's size with its aliases expanded (a billion-laughs document is refused at the first level
    whose expanded size passes the limit; loading itself shares aliased nodes and stays small)."""

    limits = DocumentLimits()

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._aliases = 0
        self._depth = 0
        self._sizes: dict[int, int] = {}

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(yaml.AliasEvent):
            self._aliases += 1
            if self._aliases > self.limits.max_yaml_aliases:
                raise LimitExceeded("max_yaml_aliases", self.limits.max_yaml_aliases,
                                    f"the YAML uses more than {self.limits.max_yaml_aliases:,} aliases")
            node = super().compose_node(parent, index)
            if id(node) not in self._sizes:
                raise InterchangeError("the YAML has an alias to a node that contains it (a recursive structure)")
            return node
        self._depth += 1
        if self._depth > self.limits.max_depth:
            raise LimitExceeded("max_depth", self.limits.max_depth,
                                f"the document is nested deeper than {self.limits.max_depth} levels")
        try:
            node = super().compose_node(parent, index)
        finally:
            self._depth -= 1
        size = 1
        if isinstance(node, yaml.SequenceNode):
            size += sum(self._sizes[id(child)] for child in node.value)
        elif isinstance(node, yaml.MappingNode):
            size += sum(self._sizes[id(key)] + self._sizes[id(value)] for key, value in node.value)
        if size > self.limits.max_nodes:
            raise LimitExceeded("max_nodes", self.limits.max_nodes,
                                f"the document expands to more than {self.limits.max_nodes:,} values")
        self._sizes[id(node)] = size
        return node


def _loader_for(limits: DocumentLimits) -> type[_LimitedLoader]:
    return type("Loader", (_LimitedLoader,), {"limits": limits})


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


def load_document(data: str | bytes, limits: DocumentLimits | None = None, *,
                  keep_unpaired_surrogates: bool = False) -> Any:
    """Parse text as JSON, else as YAML; raise InterchangeError if neither (LimitExceeded past `limits`).
    JSON escaping half a UTF-16 pair is refused unless `keep_unpaired_surrogates` (shared.json_input)."""
    limits = limits or DocumentLimits()
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
        return loads(text, max_depth=limits.max_depth, keep_unpaired_surrogates=keep_unpaired_surrogates)
    except JsonInputError as json_error:
        if json_error.code == "json_too_deep":
            raise LimitExceeded("max_depth", limits.max_depth,
                                f"the document is nested deeper than {limits.max_depth} levels") from None
        if json_error.code != "invalid_json" or text.lstrip()[:1] in "{[":
            problem = json_error.reason.removeprefix("not valid JSON: ")
            raise InterchangeError(f"invalid JSON: {problem}" if json_error.code == "invalid_json"
                                   else f"the document is {json_error.reason}") from None
    try:
        loaded = yaml.load(text, Loader=_loader_for(limits))  # noqa: S506 - SafeLoader subclass
    except InterchangeError:
        raise  # a limit, counted while composing
    except RecursionError:
        raise LimitExceeded("max_depth", limits.max_depth,
                            f"the document is nested deeper than {limits.max_depth} levels") from None
    except ValueError as exc:  # a YAML integer of more than 4,300 digits
        raise InterchangeError(f"the document is not acceptable: {exc}") from None
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
