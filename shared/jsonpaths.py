"""JSONPath expressions (jsonpath-ng's extended syntax): the filter gateway's query and tools paths,
checked the same way where a request names them and where an API key stores them."""
from __future__ import annotations

from typing import Any


def compile_jsonpath(path: str) -> Any:
    """The compiled expression; ValueError ("<parser error type>: <message>") when `path` is not one."""
    from jsonpath_ng.ext import parse

    try:
        return parse(path)
    except Exception as exc:  # noqa: BLE001 - the JSONPath parser raises several types
        raise ValueError(f"{type(exc).__name__}: {str(exc)[:200]}") from None
