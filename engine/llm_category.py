"""First step of the hierarchical chain: ask an LLM which categories a request needs.

JSPLIT's phase 1 (seed 000): the model sees only the category list and one
function, `select_tool_category`, whose `categories` argument is an array of
the category names as an enum, and must call it (`tool_choice="required"`).
That costs ~100-200 tokens and no tool definitions.

The selector raises on any failure (HTTP error, timeout, malformed answer);
`router._step_llm` records the error and the chain moves on to the embedding
step. Retries are off: the chain's next step is the retry.
"""
from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from .types import CategoryEntry

FUNCTION_NAME = "select_tool_category"
SYSTEM_PROMPT = (
    "Choose the tool categories needed to fulfil the user's request. "
    "Call select_tool_category with every category the request needs (usually one)."
)


class CategorySelectionError(RuntimeError):
    """The LLM answered, but not with a usable category choice."""


def category_selector_tool(categories: Sequence[CategoryEntry]) -> dict[str, Any]:
    names = [c.name for c in categories]
    return {
        "type": "function",
        "function": {
            "name": FUNCTION_NAME,
            "description": "Select which categories of tools to use for the request.",
            "parameters": {
                "type": "object",
                "properties": {
                    "categories": {
                        "type": "array",
                        "items": {"type": "string", "enum": names},
                        "minItems": 1,
                        "description": "Tool categories the request needs, most important first.",
                    },
                },
                "required": ["categories"],
            },
        },
    }


def category_menu(categories: Sequence[CategoryEntry]) -> str:
    lines = []
    for cat in categories:
        text = cat.description or ", ".join(cat.keywords)
        lines.append(f"- {cat.name}: {text}" if text else f"- {cat.name}")
    return "\n".join(lines)


class OpenAICategorySelector:
    """Callable `(query, categories) -> [names]` over any OpenAI-compatible chat endpoint."""

    def __init__(self, base_url: str, api_key: str, model: str, timeout: float = 3.0, max_tokens: int = 100):
        from openai import OpenAI  # imported here so the engine works without the package

        self.model = model
        self.max_tokens = max_tokens
        self.client = OpenAI(base_url=base_url, api_key=api_key or "none", timeout=timeout, max_retries=0)

    def __call__(self, query: str, categories: Sequence[CategoryEntry]) -> list[str]:
        if not categories:
            return []
        response = self.client.chat.completions.create(  # type: ignore[call-overload]  # plain dicts, not TypedDicts
            model=self.model,
            messages=[
                {"role": "system", "content": f"{SYSTEM_PROMPT}\n\nCategories:\n{category_menu(categories)}"},
                {"role": "user", "content": query},
            ],
            tools=[category_selector_tool(categories)],
            tool_choice="required",
            max_tokens=self.max_tokens,
            temperature=0,
        )
        return parse_choice(response, {c.name for c in categories})


def parse_choice(response: object, known: set[str]) -> list[str]:
    """Category names from the first `select_tool_category` call; unknown names dropped."""
    try:
        calls = response.choices[0].message.tool_calls or []  # type: ignore[attr-defined]
    except (AttributeError, IndexError) as exc:
        raise CategorySelectionError(f"no message in the LLM answer: {exc}") from exc
    for call in calls:
        if call.function.name != FUNCTION_NAME:
            continue
        try:
            arguments = json.loads(call.function.arguments or "{}")
        except json.JSONDecodeError as exc:
            raise CategorySelectionError(f"arguments are not JSON: {exc}") from exc
        chosen = arguments.get("categories", arguments.get("category", []))
        if isinstance(chosen, str):
            chosen = [chosen]
        names = [n for n in chosen if isinstance(n, str) and n in known]
        if names:
            return list(dict.fromkeys(names))
        raise CategorySelectionError(f"no known category in {chosen!r}")
    raise CategorySelectionError(f"the LLM did not call {FUNCTION_NAME}")
