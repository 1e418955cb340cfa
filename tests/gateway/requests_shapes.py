"""LLM request bodies as clients send them, for the filter and proxy tests."""
from __future__ import annotations

import json

from rest_framework.test import APIClient

FUNCTIONS = [
    ("get_weather", "Get the current weather forecast for a specific city or location"),
    ("get_stock_price", "Get current stock market prices for a ticker symbol"),
    ("send_email", "Send an email message to a recipient"),
    ("book_flight", "Book airline tickets for travel between airports"),
    ("calculate", "Perform mathematical calculations and arithmetic"),
    ("translate_text", "Translate text from one language to another"),
    ("play_music", "Play a song, album or playlist"),
    ("create_calendar_event", "Create a meeting or event in the calendar"),
]


def openai_tools(functions=FUNCTIONS) -> list[dict]:
    return [{"type": "function", "function": {
        "name": name, "description": description,
        "parameters": {"type": "object", "properties": {"input": {"type": "string", "description": "what to act on"}}},
    }} for name, description in functions]


def anthropic_tools(functions=FUNCTIONS) -> list[dict]:
    return [{"name": name, "description": description,
             "input_schema": {"type": "object", "properties": {"input": {"type": "string"}}}}
            for name, description in functions]


def responses_tools(functions=FUNCTIONS) -> list[dict]:
    """OpenAI Responses API function tools: flat, no `function` wrapper."""
    return [{"type": "function", "name": name, "description": description, "strict": False,
             "parameters": {"type": "object", "properties": {"input": {"type": "string"}}}}
            for name, description in functions]


# The Responses API's own tools: the provider runs them, the filter keeps them as sent.
RESPONSES_BUILT_INS = [
    {"type": "web_search"},
    {"type": "file_search", "vector_store_ids": ["vs_1"]},
    {"type": "code_interpreter", "container": {"type": "auto"}},
    {"type": "mcp", "server_label": "deepwiki", "server_url": "https://mcp.deepwiki.com/mcp", "require_approval": "never"},
    {"type": "custom", "name": "run_sql", "description": "Run a SQL query on the warehouse"},
]


def responses_body(query: str, tools: list[dict] | None = None, **extra) -> dict:
    return {"model": "gpt-5", "instructions": "You are helpful.",
            "input": [{"role": "user", "content": [{"type": "input_text", "text": query}]}],
            "tools": responses_tools() if tools is None else tools, **extra}


def openai_body(query: str, tools: list[dict] | None = None, **extra) -> dict:
    return {"model": "gpt-4o", "messages": [{"role": "system", "content": "You are helpful."},
                                            {"role": "user", "content": query}],
            "tools": openai_tools() if tools is None else tools, **extra}


def anthropic_body(query: str, tools: list[dict] | None = None, **extra) -> dict:
    return {"model": "claude-sonnet-4-5", "max_tokens": 256,
            "messages": [{"role": "user", "content": [{"type": "text", "text": query}]}],
            "tools": anthropic_tools() if tools is None else tools, **extra}


def post_filter(client: APIClient, body, query_string: str = "", **headers):
    raw = body if isinstance(body, (bytes, str)) else json.dumps(body)
    return client.generic("POST", "/api/v1/filter" + (f"?{query_string}" if query_string else ""), raw,
                          content_type="application/json", **headers)


def names(body: dict) -> list[str]:
    return [t["function"]["name"] if "function" in t else t["name"] for t in body["tools"]]
