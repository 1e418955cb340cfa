"""Tools a request names: "run performEDA on dataset.csv", "then call duck_duck_go".

A request that writes a tool's identifier as code spells it (snake_case, camelCase, dotted or
hyphenated) means that tool, whatever the ranking thinks of the words around it: agents and the
people writing their prompts name tools that way ("Functions to use: ['add', 'duck_duck_go']").
The router ranks such a tool first (`via` "named"), within the request's limit and only among
the tools the request may see; `select:NAME` is the way to load a tool beyond the limit.

A plain word is never taken as a name. A tool called `search` or `translate` is not named by a
request that says "search": that word is what any request about the task would say, and the
ranking already weighs it. The identifier is the catalog name as written, or the tool's
provider name (`files__read_file`, names.py); case matters, as it does in code.

Measured on the dev sets (the rankings of 68a8f39): 36 named tools in 18 requests, every one of
them among the request's expected tools; the ranking already had 34 of them in its top 5.
"""
from __future__ import annotations

import re
from collections.abc import Callable

MIN_CHARS = 4
# Runs of the characters catalog names are made of (names.py), so "files.read_file," and
# "['duck_duck_go']" give the whole name.
_TOKEN = re.compile(r"[A-Za-z0-9_.\-]+")
# Code-shaped: a separator between two letters or digits, or a lower-case letter then a capital.
_CODE_SHAPED = re.compile(r"[A-Za-z0-9][_.\-][A-Za-z0-9]|[a-z][A-Z]")
_EDGES = "._-"  # a sentence's full stop after a name, a dash before one


def is_code_shaped(name: str) -> bool:
    return len(name) >= MIN_CHARS and _CODE_SHAPED.search(name) is not None


def named_tools(query: str, referred: Callable[[str], str | None]) -> list[str]:
    """The catalog names `query` writes, in the order it first writes them. `referred` maps a
    written name to its catalog name, or None (`NameMap.referred`)."""
    found: dict[str, None] = {}
    for token in _TOKEN.findall(query):
        for written in dict.fromkeys((token, token.strip(_EDGES))):
            name = referred(written) if is_code_shaped(written) else None
            if name is not None and is_code_shaped(name):
                found.setdefault(name)
                break
    return list(found)
