"""OpenAI tool lists: chat tools, legacy functions, whole chat-completions requests."""

from pathlib import Path

from toolcatalog.interchange import parse_catalog

FILES = Path(__file__).parent / "files"


def test_tool_list() -> None:
    catalog = parse_catalog((FILES / "openai-tools.json").read_text())
    assert catalog.format == "openai" and catalog.rejected == []
    weather, delivery, tickets = catalog.tools
    assert weather["name"] == "get_current_weather"
    assert weather["parameters"]["properties"]["unit"]["enum"] == ["celsius", "fahrenheit"]
    assert delivery["parameters"]["additionalProperties"] is False
    assert tickets["parameters"] == {"type": "object", "properties": {}}  # omitted parameters
    assert weather["source"] == "openai"


def test_legacy_functions() -> None:
    catalog = parse_catalog((FILES / "openai-legacy-functions.json").read_bytes())
    assert [t["name"] for t in catalog.tools] == ["get_current_weather", "get_n_day_weather_forecast"]
    assert catalog.tools[1]["parameters"]["required"] == ["location", "format", "num_days"]


def test_bare_legacy_function_list() -> None:
    catalog = parse_catalog([{"name": "ping", "description": "Ping", "parameters": {"type": "object"}}])
    assert catalog.format == "openai" and catalog.tools[0]["name"] == "ping"


def test_chat_completions_request_body() -> None:
    catalog = parse_catalog((FILES / "openai-chat-request.json").read_text())
    assert [t["name"] for t in catalog.tools] == ["get_delivery_date", "cancel_order"]
    assert catalog.tools[1]["description"] == "Cancel an order that has not shipped yet."


def test_responses_api_flat_function_tools() -> None:
    doc = {"tools": [{"type": "function", "name": "get_weather", "description": "Weather",
                      "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}},
                     {"type": "web_search_preview"}]}
    catalog = parse_catalog(doc)
    assert [t["name"] for t in catalog.tools] == ["get_weather"]
    assert "not a function tool" in catalog.rejected[0].reason


def test_yaml_text_is_accepted() -> None:
    text = "- type: function\n  function:\n    name: ping\n    description: Ping the host\n"
    assert parse_catalog(text).tools[0]["description"] == "Ping the host"
