"""Tool definitions in the formats agents consume.

Names in OpenAI and Anthropic definitions come from `names.NameMap` (the one mapping every
door uses); MCP and "names" keep the real name.
"""
from __future__ import annotations

from typing import Any

from .types import ToolEntry


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
