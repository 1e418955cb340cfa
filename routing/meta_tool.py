"""The `tool_search` meta-tool (seed 002): one tool an agent calls to discover the others."""
from __future__ import annotations

from typing import Any

from engine import render_definition

TOOL_SEARCH_NAME = "tool_search"

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

# What a tool_search call answers in structured form (the MCP door's outputSchema).
OUTPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "tools": {"type": "array", "items": {"type": "object"},
                  "description": "The matching tools' definitions (MCP form), best first."},
        "workflowGuidance": {"type": "string"},
        "instruction": {"type": "string"},
    },
    "required": ["tools", "workflowGuidance", "instruction"],
}

SYSTEM_PROMPT = """You are an agent with tool discovery.
Use tool_search to find the tools you need:
- Describe what you want to do in natural language.
- You receive the matching tools and guidance on how to use them.
- Search again when you need other capabilities.
If you can answer without tools, answer directly."""


def tool_search_tool(fmt: str, name: str = TOOL_SEARCH_NAME) -> Any:
    """The meta-tool's definition in a route format (engine FORMATS)."""
    return render_definition(fmt, name, DESCRIPTION, PARAMETERS)


def tool_search_definition(fmt: str) -> dict[str, Any]:
    return {"format": fmt, "tool": tool_search_tool(fmt), "system_prompt": SYSTEM_PROMPT}
