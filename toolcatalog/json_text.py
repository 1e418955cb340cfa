"""JSON as a person edits it in the admin: pretty-printed, and faults placed by line and column."""
from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass
from typing import Any

from shared.json_input import JsonInputError, loads


def pretty(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False)


@dataclass(frozen=True)
class JsonFault:
    """A fault in a JSON text and a message for a person; 1-based line and column where the fault
    is placed (a syntax error, a repeated key), None where the reader gives no place (NaN, too deep)."""

    line: int | None
    column: int | None
    message: str

    def __str__(self) -> str:
        return self.message if self.line is None else f"Line {self.line}, column {self.column}: {self.message}"


def parse(text: str, *, max_depth: int) -> tuple[Any, JsonFault | None]:
    """The parsed value, or why the text is not one a person may store: what every JSON door
    refuses (shared.json_input: not JSON, NaN, too deep, half a UTF-16 pair...), and a key given
    twice in one object, which JSON readers silently resolve to the last."""
    try:
        value = loads(text, max_depth=max_depth, object_pairs_hook=_note_duplicates)
    except JsonInputError as exc:
        return None, _input_fault(exc)
    duplicate = _first_duplicate_key(value)
    if duplicate is not None:
        path, key = duplicate
        line, column = position(text, (*path, key))
        return None, JsonFault(line, column, f"the key {key!r} is given twice in one object; "
                                             "keep one (only the last would be stored).")
    return value, None


def _input_fault(exc: JsonInputError) -> JsonFault:
    if "line" in exc.details:  # a syntax error, placed: the place goes in front, not after
        line, column = exc.details["line"], exc.details["column"]
        return JsonFault(line, column, exc.reason.removesuffix(f" at line {line} column {column}") + ".")
    return JsonFault(None, None, f"The text is {exc.reason}.")


class _Duplicated(dict):
    """An object whose text gave `key` more than once."""

    key: str


def _note_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    value = dict(pairs)
    if len(value) == len(pairs):
        return value
    marked = _Duplicated(value)
    marked.key = next(key for key, count in Counter(key for key, _ in pairs).items() if count > 1)
    return marked


def _first_duplicate_key(value: Any) -> tuple[tuple[str | int, ...], str] | None:
    """The path of the first object (in document order) read with a repeated key, and the key."""
    stack: list[tuple[Any, tuple[str | int, ...]]] = [(value, ())]
    while stack:  # no recursion: the text may nest as deep as `max_depth`
        node, path = stack.pop()
        if isinstance(node, _Duplicated):
            return path, node.key
        if isinstance(node, dict):
            stack += [(item, (*path, key)) for key, item in reversed(node.items())]
        elif isinstance(node, list):
            stack += [(item, (*path, i)) for i, item in reversed(list(enumerate(node)))]
    return None


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
        found = None  # the last member of that name: the one a JSON reader keeps
        i = skip(i + 1)
        while text[i] != "}":
            name, i = _DECODER.raw_decode(text, i)
            i = skip(skip(i) + 1)  # past the colon
            if name == key:
                found = i
            _, i = _DECODER.raw_decode(text, i)
            i = skip(i)
            if text[i] == ",":
                i = skip(i + 1)
        return found
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
