"""Tool definitions in the formats agents consume.

Names in OpenAI (Chat Completions and Responses), Anthropic, Gemini and Bedrock definitions come
from `names.NameMap` (the one mapping every door uses); MCP and "names" keep the real name. Route
answers, the tool_search meta-tool and the catalog export all render here, so a tool looks the same
whichever door gives it.
"""
from __future__ import annotations

from typing import Any

from .names import MAPPED_FORMATS
from .types import ToolEntry


def render_tool(tool: ToolEntry, fmt: str, external_name: str) -> Any:
    """One definition in `fmt`. Parameters are passed through untouched."""
    name = external_name if fmt in MAPPED_FORMATS else tool.name
    return render_definition(fmt, name, tool.description, tool.schema() or {"type": "object", "properties": {}})


def render_definition(fmt: str, name: str, description: str, parameters: dict[str, Any]) -> Any:
    """A tool's definition in `fmt` from its parts, the name as the format must carry it."""
    if fmt == "openai":
        return {"type": "function", "function": {"name": name, "description": description, "parameters": parameters}}
    if fmt == "responses":  # OpenAI's Responses API: the same function tool, flat
        return {"type": "function", "name": name, "description": description, "parameters": parameters}
    if fmt == "anthropic":
        return {"name": name, "description": description, "input_schema": parameters}
    if fmt == "gemini":
        # As JSON Schema, which Gemini and Vertex AI take whole; their `parameters` is a subset of OpenAPI 3.0.
        return {"name": name, "description": description, "parametersJsonSchema": parameters}
    if fmt == "bedrock":
        spec: dict[str, Any] = {"name": name}
        if description:  # Bedrock refuses an empty description, not a missing one
            spec["description"] = description
        return {"toolSpec": {**spec, "inputSchema": {"json": parameters}}}
    if fmt == "mcp":
        return {"name": name, "description": description, "inputSchema": parameters}
    if fmt == "names":
        return name
    raise ValueError(f"unknown format {fmt!r}")
