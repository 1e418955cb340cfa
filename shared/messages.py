"""Text of chat-message content, as OpenAI and Anthropic send it. Pure Python."""
from __future__ import annotations

from typing import Any

TEXT_PART_TYPES = ("text", "input_text")


def content_text(value: Any) -> str:
    """The text of a message's content: a string, or a list of content parts
    (`{"type": "text", "text": ...}`; a part without a type counts as text), joined by
    new lines. Other parts (images, tool calls) have no text; the result is stripped."""
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, list):
        return "\n".join(t for t in (content_text(part) for part in value) if t)
    if isinstance(value, dict) and value.get("type", "text") in TEXT_PART_TYPES:
        return content_text(value.get("text"))
    return ""


def last_user_text(messages: list[Any]) -> str:
    """The text of the last user message that has any ("" when none has). In an agent's loop the
    last user turn often holds only tool results (Anthropic's `tool_result` parts): the request
    is still the one the user wrote before."""
    for message in reversed(messages):
        if not isinstance(message, dict) or message.get("role") != "user":
            continue
        if text := content_text(message.get("content")):
            return text
    return ""
