"""Reading the tools a model calls from an answer, whole or as server-sent events split anywhere."""
import json

import pytest

from gateway.tool_calls import MAX_LINE_BYTES, StreamedToolCalls, called_in_answer
from tests.support.openai_server import FakeOpenAI

BODY = {"model": "m"}


@pytest.fixture(scope="module")
def fake() -> FakeOpenAI:
    server = FakeOpenAI()  # only its answer builders: not started
    server.calls_tools = lambda body: ["get_weather", "files__read_file"]
    return server


def _read_stream(kind: str, events: list[str], piece: int | None) -> list[str]:
    data = "".join(events).encode()
    reader = StreamedToolCalls(kind)  # type: ignore[arg-type]
    step = piece or len(data)
    for start in range(0, len(data), step):
        reader.feed(data[start:start + step])
    return reader.close()


@pytest.mark.parametrize("piece", [None, 1, 7, 64])
def test_openai_stream_split_anywhere(fake, piece) -> None:
    assert _read_stream("openai", fake.chat_completion_events(BODY), piece) == ["get_weather", "files__read_file"]


@pytest.mark.parametrize("piece", [None, 1, 5, 100])
def test_anthropic_stream_split_anywhere(fake, piece) -> None:
    assert _read_stream("anthropic", fake.message_events(BODY), piece) == ["get_weather", "files__read_file"]


def test_whole_answers_of_both_formats(fake) -> None:
    assert called_in_answer("openai", json.dumps(fake.chat_completion(BODY)).encode()) == ["get_weather", "files__read_file"]
    assert called_in_answer("anthropic", json.dumps(fake.message(BODY)).encode()) == ["get_weather", "files__read_file"]


def test_legacy_function_call_and_text_only_answers() -> None:
    legacy = {"choices": [{"message": {"role": "assistant", "function_call": {"name": "lookup", "arguments": "{}"}}}]}
    assert called_in_answer("openai", json.dumps(legacy).encode()) == ["lookup"]
    assert called_in_answer("openai", b'{"choices": [{"message": {"content": "hi"}}]}') == []
    assert called_in_answer("anthropic", b'{"content": [{"type": "text", "text": "hi"}]}') == []


def test_unreadable_answers_say_unknown_not_none_called() -> None:
    assert called_in_answer("openai", b"<html>bad gateway</html>") is None
    assert called_in_answer("anthropic", b"[1, 2]") is None


def test_crlf_lines_comments_and_a_last_event_without_blank_line() -> None:
    event = {"choices": [{"delta": {"tool_calls": [{"index": 0, "function": {"name": "a_tool"}}]}}]}
    stream = f": keep-alive\r\n\r\ndata: {json.dumps(event)}".encode()
    reader = StreamedToolCalls("openai")
    reader.feed(stream)
    assert reader.close() == ["a_tool"]


def test_an_over_long_line_is_skipped_without_buffering_it() -> None:
    reader = StreamedToolCalls("anthropic")
    reader.feed(b"data: " + b"x" * (MAX_LINE_BYTES + 10))
    reader.feed(b"y" * 1000 + b"\n\n")
    assert len(reader._partial) < MAX_LINE_BYTES
    start = {"type": "content_block_start", "index": 1, "content_block": {"type": "tool_use", "name": "after"}}
    reader.feed(f"event: content_block_start\ndata: {json.dumps(start)}\n\n".encode())
    assert reader.close() == ["after"]
