"""The proxy's own search tool is defined as each upstream takes a tool, by the engine's one rendering
(`engine.render_definition`, which the tool_search meta-tool shares): Chat Completions' wrapped function,
Anthropic's input_schema, and the Responses API's flat function tool."""
from __future__ import annotations

from gateway.deferred import SEARCH_DESCRIPTION, search_tool
from routing.meta_tool import PARAMETERS


def test_chat_completions_and_anthropic_get_their_own_shapes() -> None:
    assert search_tool("openai", "tool_search") == {"type": "function", "function": {
        "name": "tool_search", "description": SEARCH_DESCRIPTION, "parameters": PARAMETERS}}
    assert search_tool("anthropic", "tool_search") == {"name": "tool_search", "description": SEARCH_DESCRIPTION,
                                                       "input_schema": PARAMETERS}


def test_the_responses_api_gets_the_flat_function_tool() -> None:
    assert search_tool("responses", "toolrouter_tool_search") == {
        "type": "function", "name": "toolrouter_tool_search", "description": SEARCH_DESCRIPTION,
        "parameters": PARAMETERS}
