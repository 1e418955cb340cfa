"""A whole Gemini generateContent request imports its function declarations, also when it carries a
`toolConfig` (Gemini's functionCallingConfig) or only built-in tools: it is not mistaken for a Bedrock
Converse request (whose toolConfig holds the tools) and refused whole, nor read as an OpenAI list."""
from __future__ import annotations

import json
from io import StringIO
from pathlib import Path

from django.core.management import call_command

from tests.support.catalog import api_client
from toolcatalog.interchange import parse_catalog
from toolcatalog.models import Tool

WEATHER = {"name": "get_weather", "description": "Current weather in a city",
           "parameters": {"type": "OBJECT", "properties": {"city": {"type": "STRING"}}, "required": ["city"]}}
REQUEST = {"contents": [{"role": "user", "parts": [{"text": "Weather in Rome?"}]}],
           "tools": [{"functionDeclarations": [WEATHER]}],
           "toolConfig": {"functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": ["get_weather"]}}}


def test_the_request_with_its_tool_config_imports_through_the_api(db) -> None:
    client = api_client(["catalog"], name="gemini-request")
    dry = client.post("/api/v1/catalog/import", {"document": REQUEST, "dry_run": True}, format="json")
    assert dry.status_code == 200, dry.content
    assert (dry.json()["format"], dry.json()["created"]) == ("gemini", ["get_weather"])
    real = client.post("/api/v1/catalog/import?format=gemini", REQUEST, format="json")
    assert real.status_code == 200, real.content
    assert Tool.objects.get(name="get_weather").parameters["properties"]["city"] == {"type": "string"}


def test_the_request_imports_through_the_command(db, tmp_path: Path) -> None:
    path = tmp_path / "request.json"
    path.write_text(json.dumps(REQUEST))
    out = StringIO()
    call_command("import_catalog", str(path), stdout=out, stderr=StringIO())
    assert json.loads(out.getvalue())["format"] == "gemini" and Tool.objects.filter(name="get_weather").exists()


def test_a_request_of_only_built_in_tools_is_gemini_and_says_why_nothing_imports() -> None:
    catalog = parse_catalog({"contents": [], "tools": [{"googleSearch": {}}]})
    assert catalog.format == "gemini" and catalog.tools == []
    assert "'googleSearch'" in catalog.rejected[0].reason
