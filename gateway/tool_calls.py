"""Which tools the model called, read from the upstream's answer: the proxy's usage evidence.

- OpenAI chat completions: `choices[].message.tool_calls[].function.name` (and the legacy
  `function_call.name`); streamed, `choices[].delta.tool_calls[].function.name`, which comes in
  the first delta of each call (later deltas carry only argument fragments).
- Anthropic messages: `content[]` blocks of type `tool_use` (their `name`); streamed, the
  `content_block_start` event of each such block.
- OpenAI responses: `output[]` items of type `function_call`, their `name` (a `custom_tool_call` calls
  a `custom` tool, which the filter keeps as sent without ranking it: not evidence of its ranking);
  streamed, the item of each `response.output_item.added`/`.done` event, and the whole response
  that `response.completed` carries (an end event too long to keep, as one repeating long
  `instructions` and many tools is, still ends the stream: its `event:` line or the start of its data says so).

Names come back as the model spelled them, i.e. as the request offered them (for OpenAI and
Anthropic, `files__read_file`); the caller maps them to catalog names.

Pure Python: no Django, nothing shared with the relay but the bytes it is fed.
"""
from __future__ import annotations

import json
import re
from typing import Any, Literal

Kind = Literal["openai", "anthropic", "responses"]
RESPONSES_CALL_TYPES = ("function_call",)
# The events that end a Responses stream with its answer whole (`response.failed` ends it with none).
RESPONSES_END_EVENTS = ("response.completed", "response.incomplete")
# Longest SSE line kept while waiting for its end: a longer one (a huge text delta) is skipped,
# it cannot be a tool call's first event, and the relay must not buffer without bound.
MAX_LINE_BYTES = 1_000_000
# The start of a Responses end event's data, for one too long to keep: `response.completed` repeats the
# request's `instructions` and every tool, so it can pass MAX_LINE_BYTES, yet the stream did finish.
_RESPONSES_END_START = re.compile(rb'data:\s*\{\s*"type"\s*:\s*"response\.(completed|incomplete)"')


def called_in_answer(kind: Kind, body: bytes) -> list[str] | None:
    """The tool names a whole (non-streamed) answer calls, in order; None if it is not readable JSON."""
    try:
        answer = json.loads(body)
    except (ValueError, UnicodeDecodeError, RecursionError):
        return None
    if not isinstance(answer, dict):
        return None
    names: list[str] = []
    if kind == "openai":
        for choice in _dicts(answer.get("choices")):
            _openai_calls(_dict(choice.get("message")), names)
    elif kind == "responses":
        _responses_calls(answer, names)
    else:
        for block in _dicts(answer.get("content")):
            if block.get("type") == "tool_use":
                _add(names, block.get("name"))
    return names


class StreamedToolCalls:
    """Reads a server-sent-event stream as it is relayed, chunk by chunk, for the tools it calls.

    `feed` every chunk (after it went on to the client), `close` at the end; `names` is the
    answer's tools in order, and `finished` says whether the stream reached its end (OpenAI's
    `[DONE]` or a choice's `finish_reason`, Anthropic's `message_stop`, the Responses API's
    `response.completed` or `response.incomplete`): a stream broken off
    before it says nothing of the tools it would have called. Only the unfinished last line and
    the current event's data lines are kept between chunks.
    """

    def __init__(self, kind: Kind) -> None:
        self.kind = kind
        self.names: list[str] = []
        self.finished = False
        self._partial = b""
        self._skipping_line = False
        self._data: list[bytes] = []
        self._event = ""  # the current event's `event:` name

    def feed(self, chunk: bytes) -> None:
        lines = chunk.split(b"\n")
        lines[0] = self._partial + lines[0]
        self._partial = lines.pop()
        for line in lines:
            if self._skipping_line:
                self._skipping_line = False  # the end of an over-long line
                continue
            self._line(line.rstrip(b"\r"))
        if len(self._partial) > MAX_LINE_BYTES:
            if not self._skipping_line:  # the line's start, not a piece from its middle
                self._over_long(self._partial)
            self._partial, self._skipping_line = b"", True

    def close(self) -> list[str]:
        """The stream ended: read what is left (a last event without its blank line)."""
        if self._partial and not self._skipping_line:
            self._line(self._partial.rstrip(b"\r"))
        self._partial = b""
        self._dispatch()
        return self.names

    def _over_long(self, start: bytes) -> None:
        """A line too long to keep, from its start: a Responses end event still ends the stream (the
        calls it repeats came in their own `response.output_item` events)."""
        if self.kind == "responses" and start.startswith(b"data:") and (
                self._event in RESPONSES_END_EVENTS or _RESPONSES_END_START.match(start)):
            self.finished = True

    def _line(self, line: bytes) -> None:
        if not line:
            self._dispatch()
            self._event = ""
        elif line.startswith(b"data:"):
            value = line[5:]
            self._data.append(value[1:] if value.startswith(b" ") else value)
        elif line.startswith(b"event:"):
            self._event = line[6:].strip().decode("utf-8", "replace")
        # `id:`, `retry:` and `:` comments say nothing the data does not.

    def _dispatch(self) -> None:
        if not self._data:
            return
        payload, self._data = b"\n".join(self._data), []
        if payload.strip() == b"[DONE]":
            self.finished = True
            return
        try:
            event = json.loads(payload)
        except (ValueError, UnicodeDecodeError, RecursionError):
            return
        if not isinstance(event, dict):
            return
        if self.kind == "openai":
            for choice in _dicts(event.get("choices")):
                _openai_calls(_dict(choice.get("delta")), self.names)
                self.finished = self.finished or bool(choice.get("finish_reason"))
        elif self.kind == "responses":
            self._responses_event(event)
        elif event.get("type") == "message_stop":
            self.finished = True
        elif event.get("type") == "content_block_start":
            block = _dict(event.get("content_block"))
            if block.get("type") == "tool_use":
                _add(self.names, block.get("name"))

    def _responses_event(self, event: dict[str, Any]) -> None:
        kind = event.get("type")
        if kind in ("response.output_item.added", "response.output_item.done"):
            _responses_item(_dict(event.get("item")), self.names)
        elif kind in RESPONSES_END_EVENTS:
            self.finished = True
            _responses_calls(_dict(event.get("response")), self.names)


def _openai_calls(message: dict[str, Any], names: list[str]) -> None:
    for call in _dicts(message.get("tool_calls")):
        _add(names, _dict(call.get("function")).get("name"))
    _add(names, _dict(message.get("function_call")).get("name"))


def _responses_calls(response: dict[str, Any], names: list[str]) -> None:
    for item in _dicts(response.get("output")):
        _responses_item(item, names)


def _responses_item(item: dict[str, Any], names: list[str]) -> None:
    if item.get("type") in RESPONSES_CALL_TYPES:
        _add(names, item.get("name"))


def _add(names: list[str], name: Any) -> None:
    if isinstance(name, str) and name and name not in names:
        names.append(name)


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _dicts(value: Any) -> list[dict[str, Any]]:
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []
