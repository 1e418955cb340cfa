"""Tool definitions in the formats agents consume, and the name mapping they need.

OpenAI and Anthropic only accept names matching `^[a-zA-Z0-9_-]{1,64}$`; the
catalog allows dots and up to 128 characters (MCP does). `NameMap` gives every
catalog name a stable external name for those two formats and keeps the reverse
map, so a name coming back (feedback, sessions) can be translated:

* a name that is already valid is used as is (most names: no surprise);
* otherwise each invalid character becomes `_`; if the result is too long or
  collides with another tool's external name, it becomes the first 55
  characters + `_` + 8 hex digits of the SHA-1 of the real name.

The mapping depends only on the set of names (processed in sorted order), so two
indexes of the same catalog agree, and a renamed tool cannot steal a name.
MCP and "names" keep the real name.
"""
from __future__ import annotations

import hashlib
import re
from typing import Any, Iterable

from .types import ToolEntry

VALID_EXTERNAL = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
_INVALID_CHAR = re.compile(r"[^a-zA-Z0-9_-]")
MAPPED_FORMATS = frozenset({"openai", "anthropic"})
_HASHED_PREFIX = 55


class NameMap:
    def __init__(self, names: Iterable[str]):
        ordered = sorted(set(names))
        self._external: dict[str, str] = {}
        self._internal: dict[str, str] = {}
        for name in ordered:  # valid names claim themselves first
            if VALID_EXTERNAL.match(name):
                self._claim(name, name)
        for name in ordered:
            if name not in self._external:
                self._claim(name, self._candidate(name))

    def _candidate(self, name: str) -> str:
        cleaned = _INVALID_CHAR.sub("_", name) or "_"
        if len(cleaned) <= 64 and cleaned not in self._internal:
            return cleaned
        digest = hashlib.sha1(name.encode("utf-8")).hexdigest()[:8]
        return f"{cleaned[:_HASHED_PREFIX]}_{digest}"

    def _claim(self, name: str, external: str) -> None:
        self._external[name] = external
        self._internal[external] = name

    def external(self, name: str, fmt: str = "openai") -> str:
        if fmt not in MAPPED_FORMATS:
            return name
        return self._external.get(name) or self._candidate(name)

    def internal(self, external: str) -> str:
        """Real catalog name for a name an agent sends back; unknown names pass through."""
        return self._internal.get(external, external)


def render_tool(tool: ToolEntry, fmt: str, external_name: str) -> Any:
    """One definition in `fmt`. Parameters are passed through untouched."""
    parameters = tool.schema() or {"type": "object", "properties": {}}
    if fmt == "openai":
        return {
            "type": "function",
            "function": {"name": external_name, "description": tool.description, "parameters": parameters},
        }
    if fmt == "anthropic":
        return {"name": external_name, "description": tool.description, "input_schema": parameters}
    if fmt == "mcp":
        return {"name": tool.name, "description": tool.description, "inputSchema": parameters}
    if fmt == "names":
        return tool.name
    raise ValueError(f"unknown format {fmt!r}")
