"""Reading JSON sent from outside: every way a text can be garbage is a `JsonInputError`, never a crash.

Python's own `json.loads` raises RecursionError on deep nesting, ValueError on an integer of more
than 4,300 digits (the int-digits limit), and accepts `NaN`, `Infinity` and `1e999`, which
PostgreSQL's jsonb refuses later. Every door that parses a body or a document uses `loads` here.
"""
from __future__ import annotations

import json
import math
import re
import sys
from collections.abc import Callable
from typing import Any

from .storable_text import UNPAIRED_SURROGATE, describe, first_match_in_strings, replace_in_strings


class JsonInputError(ValueError):
    """`reason` completes "The body is ..." / "the document is ...": e.g. "not valid JSON: ..."."""

    def __init__(self, code: str, reason: str, details: dict[str, Any] | None = None) -> None:
        super().__init__(reason)
        self.code = code
        self.reason = reason
        self.details = details or {}


def depth_of(value: Any, limit: int) -> int:
    """Nesting depth, stopping early once past `limit`."""
    stack = [(value, 1)]
    deepest = 0
    while stack:
        node, depth = stack.pop()
        deepest = max(deepest, depth)
        if deepest > limit:
            return deepest
        if isinstance(node, dict):
            stack.extend((v, depth + 1) for v in node.values())
        elif isinstance(node, list):
            stack.extend((v, depth + 1) for v in node)
    return deepest


def _finite_float(text: str) -> float:
    value = float(text)
    if math.isinf(value):
        raise JsonInputError("invalid_json", f"not valid JSON: the number {text[:40]} is too large for a float")
    return value


def _no_constant(name: str) -> Any:
    raise JsonInputError("invalid_json", f"not valid JSON: {name} is not a JSON value")


def loads(text: str | bytes, *, max_depth: int, keep_unpaired_surrogates: bool = False,
          object_pairs_hook: Callable[[list[tuple[str, Any]]], Any] | None = None) -> Any:
    """The JSON value of `text`, nested at most `max_depth` levels; JsonInputError otherwise (also
    for half a UTF-16 pair, unless `keep_unpaired_surrogates`: see `replace_unpaired_surrogates`).
    `object_pairs_hook` is json.loads' own: it builds each object from its (key, value) pairs."""
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError:
            raise JsonInputError("invalid_json", "not UTF-8") from None
    try:
        data = json.loads(text, parse_float=_finite_float, parse_constant=_no_constant,
                          object_pairs_hook=object_pairs_hook)
    except JsonInputError:
        raise
    except json.JSONDecodeError as exc:
        raise JsonInputError("invalid_json", f"not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}",
                             {"line": exc.lineno, "column": exc.colno}) from None
    except RecursionError:
        raise JsonInputError("json_too_deep", f"nested deeper than {max_depth} levels",
                             {"limit": max_depth}) from None
    except ValueError:
        # int("9" * 5000): more digits than Python converts (sys.get_int_max_str_digits()).
        digits = sys.get_int_max_str_digits()
        raise JsonInputError("number_too_long", f"not acceptable: a number has more than {digits} digits",
                             {"limit_digits": digits}) from None
    if depth_of(data, max_depth) > max_depth:
        raise JsonInputError("json_too_deep", f"nested deeper than {max_depth} levels", {"limit": max_depth})
    if (not keep_unpaired_surrogates and _SURROGATE_ESCAPE.search(text)
            and (found := first_match_in_strings(data, UNPAIRED_SURROGATE))):
        raise JsonInputError("invalid_json", f"not valid text: a string holds {describe(found[1])}, "
                             "half of a UTF-16 pair, which is no character")
    return data


# JSON can spell half of a UTF-16 pair ("\ud800"); Python reads it as a string no UTF-8 can encode, and
# every later step (the database, a hash, the body sent upstream) fails on it.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


def replace_unpaired_surrogates(value: Any) -> tuple[Any, int]:
    """`value` with every half of a UTF-16 pair made U+FFFD, and how many strings held one: for
    reading what must be read whatever it holds (a benchmark's file in `evaluate`)."""
    return replace_in_strings(value, UNPAIRED_SURROGATE, "\ufffd")
