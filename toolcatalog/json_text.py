"""JSON as a person edits it in the admin: pretty-printed, and faults placed by line and column."""
from __future__ import annotations

import copy
import json
from dataclasses import dataclass
from typing import Any

_MARK = "\u0000toolrouter-mark\u0000"


def pretty(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False)


@dataclass(frozen=True)
class JsonFault:
    """A fault in a JSON text: 1-based line and column, and a message for a person."""

    line: int
    column: int
    message: str

    def __str__(self) -> str:
        return f"Line {self.line}, column {self.column}: {self.message}"


def parse(text: str) -> tuple[Any, JsonFault | None]:
    """The parsed value, or where the text stops being JSON."""
    try:
        return json.loads(text), None
    except json.JSONDecodeError as exc:
        return None, JsonFault(exc.lineno, exc.colno, f"not valid JSON: {exc.msg}.")


def line_of(value: Any, path: tuple[str | int, ...]) -> int:
    """The 1-based line of `pretty(value)` on which the node at `path` starts (1 if it is not found)."""
    if not path:
        return 1
    marked = copy.deepcopy(value)
    node = marked
    try:
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = _MARK
    except (KeyError, IndexError, TypeError):
        return line_of(value, path[:-1])  # the fault is a missing key: point at its parent
    text = pretty(marked)
    return text[: text.index(json.dumps(_MARK))].count("\n") + 1
