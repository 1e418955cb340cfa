"""A Bedrock tool rejected for its inputSchema.json says so in Bedrock's terms (not "parameters",
a field the document does not have), and a system tool is named, so the admin's table and
`import_catalog`'s stderr (which show no position) tell which entry it was."""
from __future__ import annotations

import json

from toolcatalog.interchange import parse_catalog

SCHEMA = {"type": "object", "properties": {"sign": {"type": "string"}}}


def only_rejection(tool: dict) -> str:
    catalog = parse_catalog({"toolConfig": {"tools": [tool]}})
    [rejection] = catalog.rejected
    return rejection.reason


def test_a_schema_sent_as_json_text_is_named_as_such() -> None:
    tool = {"toolSpec": {"name": "top_song", "description": "d", "inputSchema": {"json": json.dumps(SCHEMA)}}}
    reason = only_rejection(tool)
    assert reason.startswith("inputSchema.json must be the parameters' JSON Schema") and "JSON text" in reason


def test_a_schema_of_another_kind_is_named() -> None:
    tool = {"toolSpec": {"name": "top_song", "description": "d", "inputSchema": {"json": [SCHEMA]}}}
    assert only_rejection(tool) == "inputSchema.json must be the parameters' JSON Schema, an object; found a list of 1 entries"


def test_a_system_tool_is_named() -> None:
    reason = only_rejection({"systemTool": {"name": "nova_grounding"}})
    assert reason == "Bedrock system tool 'nova_grounding' has no input schema; only toolSpec tools can be imported"
