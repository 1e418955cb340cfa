"""Which tool names a usage or workflow hint mentions: the one reading of guidance that following
a rename (services.saving.rename_in_hints) and the catalog doctor's check for hints naming a tool
no request is offered (doctor.py) share, so the doctor flags exactly what a rename would rewrite.

Hints name tools bare, in prose ("Then use search_google.", "Follow with files.read_file"), so a
mention is a whole run of name characters: letters, digits, '_', '-', and '.' between them. A
longer name does not mention a shorter one (`files.read_file` is not `read_file`, nor
`search_google_news` `search_google`), and the full stop after a name ends its sentence, not the
name. Pure Python: no Django.
"""
from __future__ import annotations

import re

_MENTION = re.compile(r"(?<![\w.\-])(?:[\w\-]|\.(?=\w))+")


def mentioned_names(text: str) -> list[str]:
    """Every word of `text` that a tool could be named, once each, in the order written."""
    return list(dict.fromkeys(_MENTION.findall(text or "")))


def replace_mentions(text: str, old_name: str, new_name: str) -> str:
    """`text` with each mention of `old_name` written `new_name`."""
    return _MENTION.sub(lambda m: new_name if m.group(0) == old_name else m.group(0), text)
