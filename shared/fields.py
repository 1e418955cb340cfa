"""The unknown-field check every JSON door makes. Pure Python."""
from __future__ import annotations

from collections.abc import Iterable
from typing import Any


def unknown_field_errors(data: dict[str, Any], known: Iterable[str],
                         message: str = "Unknown field.") -> dict[str, list[str]]:
    """{field: [message]} for every key of `data` not in `known` (empty when all are known).

    A misspelt field ("limt") would otherwise be ignored and a default silently used.
    """
    return {name: [message] for name in sorted(set(data) - set(known))}
