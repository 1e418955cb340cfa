"""JSON as a person edits it in the admin: pretty-printed, and faults placed by line and column."""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any


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


_SPACE = re.compile(r"[ \t\n\r]*")
_DECODER = json.JSONDecoder()


def position(text: str, path: tuple[str | int, ...]) -> tuple[int, int]:
    """1-based (line, column) in `text` (valid JSON) where the value at `path` starts; a path
    that goes missing part-way points at the last value found on the way."""
    i = _SPACE.match(text, 0).end()  # type: ignore[union-attr]  # the pattern matches the empty string
    for key in path:
        found = _child(text, i, key)
        if found is None:
            break
        i = found
    line = text.count("\n", 0, i) + 1
    return line, i - (text.rfind("\n", 0, i) + 1) + 1


def _child(text: str, i: int, key: str | int) -> int | None:
    """Where the member `key` of the object (or item `key` of the array) starting at `i` starts."""
    def skip(j: int) -> int:
        return _SPACE.match(text, j).end()  # type: ignore[union-attr]

    if text[i] == "{" and isinstance(key, str):
        i = skip(i + 1)
        while text[i] != "}":
            name, i = _DECODER.raw_decode(text, i)
            i = skip(skip(i) + 1)  # past the colon
            if name == key:
                return i
            _, i = _DECODER.raw_decode(text, i)
            i = skip(i)
            if text[i] == ",":
                i = skip(i + 1)
        return None
    if text[i] == "[" and isinstance(key, int):
        i = skip(i + 1)
        for _ in range(key):
            if text[i] == "]":
                return None
            _, i = _DECODER.raw_decode(text, i)
            i = skip(i)
            if text[i] == ",":
                i = skip(i + 1)
        return None if text[i] == "]" else i
    return None


def line_of(value: Any, path: tuple[str | int, ...]) -> int:
    """The 1-based line of `pretty(value)` on which the node at `path` starts."""
    return position(pretty(value), path)[0]
