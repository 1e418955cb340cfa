"""The `tool_search` meta-tool (seed 002): one tool an agent calls to discover the others."""
from __future__ import annotations

from typing import Any

DESCRIPTION = (
    "Search for the tools you need. Describe the capability in plain words. "
    "Returns tools you can then call, with guidance on how to use them. "
    "Search again if you need more capabilities.\n\n"
    "Examples:\n"
    '- "find an image" -> image search tools\n'
    '- "create a page and add a section" -> page and section tools\n'
    '- "play some jazz" -> music tools'
)

PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "query": {"type": "string", "description": "What do you need to do?"},
        "limit": {"type": "integer", "minimum": 1, "maximum": 50, "default": 5, "description": "Most tools to return."},
    },
    "required": ["query"],
}

SYSTEM_PROMPT = """You are an agent with tool discovery.
Use tool_search to find the tools you need:
- Describe what you want to do in natural language.
- You receive the matching tools and guidance on how to use them.
- Search again when you need other capabilities.
If you can answer without tools, answer directly."""


def tool_search_definition(fmt: str) -> dict[str, Any]:
    if fmt == "anthropic":
        tool = {"name": "tool_search", "description": DESCRIPTION, "input_schema": PARAMETERS}
    else:
        tool = {"type": "function", "function": {"name": "tool_search", "description": DESCRIPTION, "parameters": PARAMETERS}}
    return {"format": fmt, "tool": tool, "system_prompt": SYSTEM_PROMPT}
