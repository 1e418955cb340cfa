"""A real HTTP server speaking OpenAI's Chat Completions and Responses and Anthropic's Messages, whose answers
a test scripts, and which keeps the raw bytes of every request (for prompt-prefix checks).

The script is a function of the request body: it returns either {"text": "..."}, or
{"call": NAME, "arguments": {...}}, or {"calls": [{"call": ..., "arguments": ...}, ...]} (several calls in one
answer); the server wraps it in the provider's answer shape, with a `usage` of 1 token in and 1 out unless the move
gives its own ("usage": {...}, the answer's `usage` as it is). {"fail": STATUS} answers that HTTP status and an
OpenAI-shaped error instead; {"hang": SECONDS} waits that long before answering (a proxy's read timeout), and
{"drop": true} closes the connection without an answer. On the Responses API a move may add "items": [...], raw output items (a
`computer_call`...) put after its calls or message, as given.
"""
from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler

from tests.support.local_server import LocalServer

# (kind, body) -> {"text": ...} | {"call": ..., "arguments": ...} | {"calls": [...]} | {"fail": status} | {"hang": s}
# | {"drop": True}, "usage" optional
Script = Callable[[str, dict], dict]
PATHS = {"anthropic": "/messages", "responses": "/responses"}


class ScriptedLLM(LocalServer):
    def __init__(self, script: Script) -> None:
        self.script = script
        self.raw: list[tuple[str, bytes]] = []  # (path, body bytes) per request
        self._lock = threading.Lock()
        super().__init__()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        llm = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_POST(self) -> None:  # noqa: N802 - the stdlib's name
                raw = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                with llm._lock:
                    llm.raw.append((self.path, raw))
                    number = len(llm.raw)
                body = json.loads(raw)
                kind = next((k for k, path in PATHS.items() if self.path.endswith(path)), "openai")
                move = llm.script(kind, body)
                if move.get("drop"):
                    self.close_connection = True
                    return
                time.sleep(move.get("hang", 0))
                status = move.get("fail", 200)
                answer = ANSWERS[kind](body, move, number) if status == 200 else {
                    "error": {"message": f"scripted failure {status}", "type": "server_error"}}
                data = json.dumps(answer).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        return Handler


def calls(move: dict) -> list[dict]:
    return move["calls"] if "calls" in move else [move] if "call" in move else []


def call_id(prefix: str, number: int, position: int) -> str:
    """The first call of answer 7 is `call_7`, the next ones `call_7_1`, `call_7_2`..."""
    return f"{prefix}_{number}" + (f"_{position}" if position else "")


def openai_answer(body: dict, move: dict, number: int) -> dict:
    if calls(move):
        message = {"role": "assistant", "content": None, "tool_calls": [
            {"id": call_id("call", number, i), "type": "function",
             "function": {"name": c["call"], "arguments": json.dumps(c["arguments"])}} for i, c in enumerate(calls(move))]}
        finish = "tool_calls"
    else:
        message = {"role": "assistant", "content": move["text"]}
        finish = "stop"
    return {"id": f"chatcmpl-{number}", "object": "chat.completion", "created": 0, "model": body.get("model", ""),
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": move.get("usage", {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2})}


def anthropic_answer(body: dict, move: dict, number: int) -> dict:
    if calls(move):
        content = [{"type": "tool_use", "id": call_id("toolu", number, i), "name": c["call"], "input": c["arguments"]}
                   for i, c in enumerate(calls(move))]
        stop = "tool_use"
    else:
        content = [{"type": "text", "text": move["text"]}]
        stop = "end_turn"
    return {"id": f"msg_{number}", "type": "message", "role": "assistant", "model": body.get("model", ""),
            "content": content, "stop_reason": stop, "stop_sequence": None,
            "usage": move.get("usage", {"input_tokens": 1, "output_tokens": 1})}


def responses_answer(body: dict, move: dict, number: int) -> dict:
    """A Responses API answer as a reasoning model gives it: a reasoning item, then the call or the message."""
    reasoning = {"type": "reasoning", "id": f"rs_{number}", "summary": []}
    if calls(move):
        said = [{"type": "function_call", "id": call_id("fc", number, i), "call_id": call_id("call", number, i),
                 "name": c["call"], "arguments": json.dumps(c["arguments"]), "status": "completed"}
                for i, c in enumerate(calls(move))]
    else:
        said = [{"type": "message", "id": f"msg_{number}", "role": "assistant", "status": "completed",
                 "content": [{"type": "output_text", "text": move["text"], "annotations": []}]}]
    return {"id": f"resp_{number}", "object": "response", "created_at": 0, "status": "completed",
            "model": body.get("model", ""), "output": [reasoning, *said, *move.get("items", [])],
            "parallel_tool_calls": True,
            "tool_choice": body.get("tool_choice", "auto"), "tools": body.get("tools", []),
            "previous_response_id": body.get("previous_response_id"),
            "usage": move.get("usage", {"input_tokens": 1, "input_tokens_details": {"cached_tokens": 0},
                                        "output_tokens": 1, "output_tokens_details": {"reasoning_tokens": 0},
                                        "total_tokens": 2})}


ANSWERS: dict[str, Callable[[dict, dict, int], dict]] = {
    "openai": openai_answer, "anthropic": anthropic_answer, "responses": responses_answer}
