"""Anthropic tool lists and Messages requests."""

from pathlib import Path

from toolcatalog.interchange import parse_catalog

FILES = Path(__file__).parent / "files"


def test_tool_list() -> None:
    catalog = parse_catalog((FILES / "anthropic-tools.json").read_text())
    assert catalog.format == "anthropic"
    assert [t["name"] for t in catalog.tools] == ["get_weather", "get_time", "record_summary"]
    weather = catalog.tools[0]
    assert weather["description"] == "Get the current weather in a given location"
    assert weather["parameters"]["required"] == ["location"]
    assert weather["source"] == "anthropic" and weather["category"] is None
    summary = catalog.tools[2]["parameters"]["properties"]["key_colors"]
    assert summary["items"]["required"] == ["r", "g", "b", "name"]


def test_messages_request_keeps_client_tools_and_rejects_server_tools() -> None:
    catalog = parse_catalog((FILES / "anthropic-messages-request.json").read_bytes())
    assert catalog.format == "anthropic"
    assert [t["name"] for t in catalog.tools] == ["get_stock_price"]
    [rejection] = catalog.rejected
    assert (rejection.index, rejection.name) == (1, "web_search")
    assert "server tool of type 'web_search_20250305'" in rejection.reason


def test_wrapped_tools_object() -> None:
    doc = {"tools": [{"name": "lookup", "description": "Look up a word", "input_schema": {"type": "object"}}]}
    assert parse_catalog(doc, format="anthropic").tools[0]["parameters"] == {"type": "object"}
