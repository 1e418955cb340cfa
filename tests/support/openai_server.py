"""A real HTTP server speaking the OpenAI protocol, for tests of the `openai` paths.

It answers /v1/embeddings with deterministic vectors (a hash of each word, summed),
and /v1/chat/completions with a tool call chosen by a function the test gives.
`fail_with` makes it answer that HTTP status; `delay` makes it slow. Vectors go as base64 float32
when the request asks for it (as OpenAI does; the `openai` client asks by default), else as lists;
`embeddings_fault` makes /v1/embeddings answer 200 with something unusable (see EMBEDDING_FAULTS).
OpenAI's own embedding models are answered as OpenAI answers them (OPENAI_EMBEDDING_MODELS): their
native size unless the request names `dimensions` (text-embedding-3), OpenAI's 400 when a model
that takes no `dimensions` gets it; any other model name is an OpenAI-compatible server's model,
answered at `dimensions` (the server's) whatever the request says.
Requests with `"stream": true` are answered with server-sent events, one chunk every
`stream_chunk_delay` seconds (`stream_finished` is set once the last one is written; with
`stream_cut_after`, the connection drops after that many events, as an upstream that breaks off);
/v1/messages speaks Anthropic's Messages API the same way, /v1/responses OpenAI's Responses API
(output items; streamed as its typed events, ending with `response.completed`). With `calls_tools`
set (a function of the request body giving tool names), every answer, streamed or not and in every
format, calls those tools after a line of text, as the real APIs do.
"""
from __future__ import annotations

import base64
import hashlib
import json
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler
from typing import Any

import numpy as np

from tests.support.local_server import LocalServer

# What `embeddings_fault` makes a 200 answer of /v1/embeddings hold, as misbehaving servers do.
EMBEDDING_FAULTS = {
    "drop_first": "one vector fewer than texts: the first text's is missing (indexes still 0..n-2)",
    "drop_last": "one vector fewer than texts: the last text's is missing",
    "nan": "the first vector holds a NaN",
    "inf": "the first vector holds an infinity",
    "truncated": "the JSON cut off half-way",
    "html": "an HTML error page (Content-Type text/html), as a proxy in front of the model serves",
    "ragged": "vectors of different lengths: the last one is a value short",
}


# OpenAI's embedding models: (native size, whether the request may name `dimensions`).
OPENAI_EMBEDDING_MODELS = {
    "text-embedding-3-small": (1536, True),
    "text-embedding-3-large": (3072, True),
    "text-embedding-ada-002": (1536, False),
}


def word_vector(text: str, dimensions: int) -> list[float]:
    vector = np.zeros(dimensions, dtype=np.float64)
    for word in text.lower().split():
        seed = int.from_bytes(hashlib.sha256(word.encode()).digest()[:4], "little")
        vector += np.random.default_rng(seed).standard_normal(dimensions)
    norm = np.linalg.norm(vector) or 1.0
    return (vector / norm).tolist()


class FakeOpenAI(LocalServer):
    def __init__(self, dimensions: int = 384,
                 choose_tool_call: Callable[[dict], dict] | None = None) -> None:
        self.dimensions = dimensions
        self.choose_tool_call = choose_tool_call
        self.fail_with: int | None = None
        self.delay = 0.0
        self.requests: list[dict] = []
        self.stream_chunk_delay = 0.0
        self.stream_cut_after: int | None = None  # events sent before the connection is dropped
        self.stream_finished = threading.Event()
        self.calls_tools: Callable[[dict], list[str]] | None = None
        self.embeddings_fault: str | None = None  # a key of EMBEDDING_FAULTS
        super().__init__()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_POST(self) -> None:  # noqa: N802 - the stdlib's name
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
                fake.requests.append({"path": self.path, "body": body, "headers": dict(self.headers)})
                if fake.delay:
                    time.sleep(fake.delay)
                if fake.fail_with:
                    return self._reply(fake.fail_with, {"error": {"message": "injected failure", "type": "server_error"}})
                if self.path.endswith("/embeddings") and fake.embeddings_fault:
                    return self._send(200, *fake.faulty_embeddings(body))
                if self.path.endswith("/embeddings") and (refusal := fake.refused_dimensions(body)):
                    return self._reply(400, {"error": {"message": refusal, "type": "invalid_request_error",
                                                       "param": None, "code": None}})
                if self.path.endswith("/embeddings"):
                    return self._reply(200, fake.embeddings(body))
                if self.path.endswith("/chat/completions") and body.get("stream"):
                    return self._stream(fake.chat_completion_events(body))
                if self.path.endswith("/chat/completions"):
                    return self._reply(200, fake.chat_completion(body))
                if self.path.endswith("/messages") and body.get("stream"):
                    return self._stream(fake.message_events(body))
                if self.path.endswith("/messages"):
                    return self._reply(200, fake.message(body))
                if self.path.endswith("/responses") and body.get("stream"):
                    return self._stream(fake.response_events(body))
                if self.path.endswith("/responses"):
                    return self._reply(200, fake.response(body))
                return self._reply(404, {"error": {"message": f"no route {self.path}"}})

            def _reply(self, status: int, payload: dict) -> None:
                self._send(status, "application/json", json.dumps(payload).encode())

            def _send(self, status: int, content_type: str, data: bytes) -> None:
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", content_type)
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (a timeout test)

            def _stream(self, events: list[str]) -> None:
                try:
                    self.send_response(200)
                    self.send_header("Content-Type", "text/event-stream")
                    self.send_header("Cache-Control", "no-cache")
                    self.end_headers()  # HTTP/1.0: the body ends when the connection closes
                    for i, event in enumerate(events[:fake.stream_cut_after]):
                        if i and fake.stream_chunk_delay:
                            time.sleep(fake.stream_chunk_delay)
                        self.wfile.write(event.encode())
                        self.wfile.flush()
                except (BrokenPipeError, ConnectionResetError):
                    pass
                finally:
                    fake.stream_finished.set()

        return Handler

    def embeddings(self, body: dict, vectors: list[list[float]] | None = None) -> dict:
        """The answer with each input's vector (or with `vectors`), encoded as the request asks."""
        if vectors is None:
            inputs = body["input"] if isinstance(body["input"], list) else [body["input"]]
            vectors = [word_vector(text, self.answer_dimensions(body)) for text in inputs]

        def encoded(vector: list[float]) -> list[float] | str:
            if body.get("encoding_format") == "base64":
                return base64.b64encode(np.asarray(vector, dtype="<f4").tobytes()).decode()
            return vector

        return {
            "object": "list",
            "model": body.get("model", ""),
            "data": [{"object": "embedding", "index": i, "embedding": encoded(vector)} for i, vector in enumerate(vectors)],
            "usage": {"prompt_tokens": 1, "total_tokens": 1},
        }

    def answer_dimensions(self, body: dict) -> int:
        """The size of the vectors a request gets: an OpenAI model's native size, or the one the
        request names if the model takes `dimensions`; this server's size for any other model."""
        native, takes_dimensions = OPENAI_EMBEDDING_MODELS.get(body.get("model", ""), (None, False))
        if native is None:
            return self.dimensions
        return int(body["dimensions"]) if takes_dimensions and "dimensions" in body else native

    @staticmethod
    def refused_dimensions(body: dict) -> str | None:
        """OpenAI's 400 message for a `dimensions` its model does not take, else None."""
        native, takes_dimensions = OPENAI_EMBEDDING_MODELS.get(body.get("model", ""), (None, False))
        if native is None or "dimensions" not in body:
            return None
        if not takes_dimensions:
            return "This model does not support specifying dimensions."
        if not isinstance(body["dimensions"], int) or not 1 <= body["dimensions"] <= native:
            return f"Invalid 'dimensions': must be an integer between 1 and {native}."
        return None

    def faulty_embeddings(self, body: dict) -> tuple[str, bytes]:
        """(content type, body) of a 200 answer to /v1/embeddings broken as `embeddings_fault` says."""
        fault = self.embeddings_fault
        inputs = body["input"] if isinstance(body["input"], list) else [body["input"]]
        vectors = [word_vector(text, self.dimensions) for text in inputs]
        if fault == "html":
            return "text/html", b"<html><body><h1>502 Bad Gateway</h1><p>nginx</p></body></html>"
        if fault == "drop_first":
            vectors = vectors[1:]
        elif fault == "drop_last":
            vectors = vectors[:-1]
        elif fault in ("nan", "inf"):
            vectors[0][0] = float(fault)
        elif fault == "ragged":
            vectors[-1] = vectors[-1][:-1]
        elif fault != "truncated":
            raise ValueError(f"unknown embeddings_fault {fault!r}: one of {sorted(EMBEDDING_FAULTS)}")
        data = json.dumps(self.embeddings(body, vectors)).encode()  # NaN and Infinity as Python writes them
        return "application/json", data[:len(data) // 2] if fault == "truncated" else data

    def chat_completion(self, body: dict) -> dict:
        if self.calls_tools is not None:
            return self._chat_completion_calling(body, self.calls_tools(body))
        call = self.choose_tool_call(body) if self.choose_tool_call else {"name": "noop", "arguments": {}}
        return {
            "id": "chatcmpl-test",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model", ""),
            "choices": [{
                "index": 0,
                "finish_reason": "tool_calls",
                "message": {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [{
                        "id": "call_1",
                        "type": "function",
                        "function": {"name": call["name"], "arguments": json.dumps(call["arguments"])},
                    }],
                },
            }],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
        }

    def _chat_completion_calling(self, body: dict, names: list[str]) -> dict:
        calls = [{"id": f"call_{i}", "type": "function", "function": {"name": name, "arguments": "{}"}}
                 for i, name in enumerate(names)]
        return {"id": "chatcmpl-test", "object": "chat.completion", "created": int(time.time()),
                "model": body.get("model", ""),
                "choices": [{"index": 0, "finish_reason": "tool_calls" if calls else "stop",
                             "message": {"role": "assistant", "content": "Let me check.",
                                         **({"tool_calls": calls} if calls else {})}}],
                "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}

    def chat_completion_events(self, body: dict) -> list[str]:
        """An answer streamed as chat.completion.chunk events: three text deltas, then [DONE]; with
        `calls_tools`, each call's first delta names it and two more carry its arguments in pieces."""
        def chunk(delta: dict, finish: str | None = None) -> str:
            payload = {"id": "chatcmpl-stream", "object": "chat.completion.chunk", "created": 0,
                       "model": body.get("model", ""),
                       "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
            return f"data: {json.dumps(payload)}\n\n"

        words = ["Hello", " from", " upstream"]
        calls: list[str] = []
        for i, name in enumerate(self.calls_tools(body) if self.calls_tools else []):
            first = {"index": i, "id": f"call_{i}", "type": "function", "function": {"name": name, "arguments": ""}}
            calls += [chunk({"tool_calls": [first]})] + [
                chunk({"tool_calls": [{"index": i, "function": {"arguments": part}}]}) for part in ('{"in', 'put": 1}')]
        finish = "tool_calls" if calls else "stop"
        return ([chunk({"role": "assistant", "content": ""})] + [chunk({"content": w}) for w in words]
                + calls + [chunk({}, finish), "data: [DONE]\n\n"])

    def message(self, body: dict) -> dict:
        names = self.calls_tools(body) if self.calls_tools else []
        uses = [{"type": "tool_use", "id": f"toolu_{i}", "name": name, "input": {}} for i, name in enumerate(names)]
        return {"id": "msg_test", "type": "message", "role": "assistant", "model": body.get("model", ""),
                "content": [{"type": "text", "text": "Hello from upstream"}, *uses],
                "stop_reason": "tool_use" if uses else "end_turn",
                "stop_sequence": None, "usage": {"input_tokens": 1, "output_tokens": 3}}

    def message_events(self, body: dict) -> list[str]:
        def event(name: str, payload: dict) -> str:
            return f"event: {name}\ndata: {json.dumps({'type': name, **payload})}\n\n"

        start = {**self.message(body), "content": [], "stop_reason": None}
        deltas = [event("content_block_delta", {"index": 0, "delta": {"type": "text_delta", "text": w}})
                  for w in ["Hello", " from", " upstream"]]
        uses: list[str] = []
        for i, name in enumerate(self.calls_tools(body) if self.calls_tools else [], start=1):
            block = {"type": "tool_use", "id": f"toolu_{i}", "name": name, "input": {}}
            uses += [event("content_block_start", {"index": i, "content_block": block}),
                     event("content_block_delta", {"index": i, "delta": {"type": "input_json_delta",
                                                                         "partial_json": '{"input": 1}'}}),
                     event("content_block_stop", {"index": i})]
        stop = "tool_use" if uses else "end_turn"
        return ([event("message_start", {"message": start}),
                 event("content_block_start", {"index": 0, "content_block": {"type": "text", "text": ""}})]
                + deltas + [event("content_block_stop", {"index": 0})] + uses
                + [event("message_delta", {"delta": {"stop_reason": stop}, "usage": {"output_tokens": 3}}),
                   event("message_stop", {})])


    def response(self, body: dict) -> dict:
        """A Responses API answer: a message item with one line of text, then a function_call item per tool."""
        calls = [{"type": "function_call", "id": f"fc_{i}", "call_id": f"call_{i}", "name": name,
                  "arguments": '{"input": 1}', "status": "completed"}
                 for i, name in enumerate(self.calls_tools(body) if self.calls_tools else [])]
        text = {"type": "output_text", "text": "Hello from upstream", "annotations": []}
        message = {"type": "message", "id": "msg_0", "role": "assistant", "status": "completed", "content": [text]}
        return {"id": "resp_test", "object": "response", "created_at": 0, "status": "completed",
                "model": body.get("model", ""), "output": [message, *calls], "parallel_tool_calls": True,
                "tool_choice": body.get("tool_choice", "auto"), "tools": body.get("tools", []),
                "previous_response_id": body.get("previous_response_id"),
                "usage": {"input_tokens": 1, "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0},
                          "output_tokens": 3, "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 4}}

    def response_events(self, body: dict) -> list[str]:
        """The same answer as the Responses API streams it: typed events, each item opened and closed,
        the text and each call's arguments in deltas, then `response.completed` with the whole response."""
        whole = self.response(body)
        message, calls = whole["output"][0], whole["output"][1:]
        payloads: list[dict] = [{"type": "response.created", "response": {**whole, "status": "in_progress", "output": []}},
                                {"type": "response.output_item.added", "output_index": 0,
                                 "item": {**message, "status": "in_progress", "content": []}},
                                {"type": "response.content_part.added", "item_id": "msg_0", "output_index": 0,
                                 "content_index": 0, "part": {**message["content"][0], "text": ""}}]
        payloads += [{"type": "response.output_text.delta", "item_id": "msg_0", "output_index": 0, "content_index": 0,
                      "delta": word, "logprobs": []} for word in ["Hello", " from", " upstream"]]
        payloads += [{"type": "response.output_text.done", "item_id": "msg_0", "output_index": 0, "content_index": 0,
                      "text": "Hello from upstream", "logprobs": []},
                     {"type": "response.content_part.done", "item_id": "msg_0", "output_index": 0, "content_index": 0,
                      "part": message["content"][0]},
                     {"type": "response.output_item.done", "output_index": 0, "item": message}]
        for index, call in enumerate(calls, start=1):
            payloads += [{"type": "response.output_item.added", "output_index": index,
                          "item": {**call, "arguments": "", "status": "in_progress"}}]
            payloads += [{"type": "response.function_call_arguments.delta", "item_id": call["id"],
                          "output_index": index, "delta": part} for part in ('{"in', 'put": 1}')]
            payloads += [{"type": "response.function_call_arguments.done", "item_id": call["id"],
                          "output_index": index, "arguments": call["arguments"]},
                         {"type": "response.output_item.done", "output_index": index, "item": call}]
        payloads.append({"type": "response.completed", "response": whole})
        return [f"event: {p['type']}\ndata: {json.dumps({**p, 'sequence_number': n})}\n\n"
                for n, p in enumerate(payloads)]


def provider_settings(server: FakeOpenAI, model: str = "fake-embed") -> dict[str, str]:
    """The settings, or a worker's environment, that make `server` the embedding provider."""
    return {"EMBEDDING_PROVIDER": "openai", "EMBEDDING_MODEL": model, "EMBEDDING_BASE_URL": server.base_url,
            "EMBEDDING_API_KEY": "test-key"}


def use_as_provider(settings: Any, server: FakeOpenAI, model: str = "fake-embed") -> None:
    """Point this process's settings (pytest-django's `settings`) at `server`."""
    for name, value in provider_settings(server, model).items():
        setattr(settings, name, value)
