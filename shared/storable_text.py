"""Text the database cannot hold: PostgreSQL's text and jsonb take neither a NUL nor a UTF-16
surrogate without its pair (what JSON's "\\ud800" reads as alone). Saving one fails in the
database, after every other check; the doors refuse it first, with a message."""
from __future__ import annotations

import re

_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")


def unstorable_character(text: str) -> str | None:
    """What in `text` cannot be stored ("a NUL character (U+0000)"), or None."""
    match = _UNSTORABLE.search(text)
    if match is None:
        return None
    char = match.group()
    return "a NUL character (U+0000)" if char == "\x00" else f"an unpaired surrogate (U+{ord(char):04X})"
