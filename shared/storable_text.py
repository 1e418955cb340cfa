"""Text the database cannot hold: PostgreSQL's text and jsonb take neither a NUL nor a UTF-16
surrogate without its pair (what JSON's "\\ud800" reads as alone). Saving one fails in the
database, after every other check; the doors refuse it first, with a message.

Also the two walks every such check needs over a JSON value's strings (its keys too): the first
match with where it is, and a replacement in all of them."""
from __future__ import annotations

import re
from typing import Any

NUL = re.compile("\x00")
UNPAIRED_SURROGATE = re.compile("[\ud800-\udfff]")
UNSTORABLE = re.compile("[\x00\ud800-\udfff]")


def describe(char: str) -> str:
    return "a NUL character (U+0000)" if char == "\x00" else f"an unpaired surrogate (U+{ord(char):04X})"


def unstorable_character(text: str) -> str | None:
    """What in `text` cannot be stored ("a NUL character (U+0000)"), or None."""
    match = UNSTORABLE.search(text)
    return describe(match.group()) if match else None


def first_match_in_strings(value: Any, pattern: re.Pattern[str]) -> tuple[tuple[str, ...], str] | None:
    """The first string of `value` in document order that `pattern` finds something in: the path
    of keys and list positions to it (a key is found at its object's path) and what it found."""
    stack: list[tuple[Any, tuple[str, ...]]] = [(value, ())]
    while stack:  # no recursion: a body may nest as deep as its parser allows
        node, path = stack.pop()
        if isinstance(node, str):
            if match := pattern.search(node):
                return path, match.group()
        elif isinstance(node, dict):
            for key, item in reversed(node.items()):
                stack += [(item, (*path, str(key))), (key, path)]
        elif isinstance(node, list):
            stack += [(item, (*path, str(position))) for position, item in reversed(list(enumerate(node)))]
    return None


def replace_in_strings(value: Any, pattern: re.Pattern[str], replacement: str) -> tuple[Any, int]:
    """`value` with what `pattern` finds in each string replaced, and how many strings changed."""
    if isinstance(value, str):
        fixed = pattern.sub(replacement, value)
        return fixed, int(fixed != value)
    if isinstance(value, dict):
        pairs = [(replace_in_strings(k, pattern, replacement), replace_in_strings(v, pattern, replacement))
                 for k, v in value.items()]
        return {k: v for (k, _), (v, _) in pairs}, sum(a + b for (_, a), (_, b) in pairs)
    if isinstance(value, list):
        items = [replace_in_strings(v, pattern, replacement) for v in value]
        return [v for v, _ in items], sum(n for _, n in items)
    return value, 0
