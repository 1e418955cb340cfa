"""The LLM step against a real local HTTP server speaking chat completions."""
from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from engine import OpenAICategorySelector, RouteRequest, RoutingIndex, route


class _ChatHandler(BaseHTTPRequestHandler):
    behaviour = "ok"  # "ok" | "error" | "slow"
    answer = ["weather"]
    seen: list[dict] = []

    def do_POST(self) -> None:  # noqa: N802 - http.server API
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).seen.append(body)
        if self.behaviour == "slow":
            time.sleep(1.5)
        if self.behaviour == "error":
            self._send(500, {"error": {"message": "boom", "type": "server_error"}})
            return
        self._send(200, self._completion(body))

    def _completion(self, body: dict) -> dict:
        call = {"id": "call_1", "type": "function",
                "function": {"name": "select_tool_category", "arguments": json.dumps({"categories": self.answer})}}
        message = {"role": "assistant", "content": None, "tool_calls": [call]}
        return {"id": "chatcmpl-1", "object": "chat.completion", "created": 0, "model": body["model"],
                "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls"}],
                "usage": {"prompt_tokens": 50, "completion_tokens": 10, "total_tokens": 60}}

    def _send(self, status: int, payload: dict) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        try:
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture()
def server() -> Iterator[str]:
    _ChatHandler.behaviour, _ChatHandler.seen = "ok", []
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _ChatHandler)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    httpd.shutdown()
    httpd.server_close()


def _route(index: RoutingIndex, base_url: str, embed, query: str = "email me the forecast"):
    selector = OpenAICategorySelector(base_url, "test-key", "tiny-model", timeout=0.3)
    request = RouteRequest(query=query, strategy="hierarchical")
    return route(index, request, embed_texts=embed, select_categories_llm=selector)


def test_llm_choice_selects_the_category(index: RoutingIndex, server: str, embed) -> None:
    result = _route(index, server, embed)
    assert result.strategy.steps == [{"step": "llm", "status": "ok", "categories": ["weather"]}]
    assert result.names[0] == "get_weather"
    request = _ChatHandler.seen[0]
    assert request["tool_choice"] == "required" and request["max_tokens"] <= 200
    enum = request["tools"][0]["function"]["parameters"]["properties"]["categories"]["items"]["enum"]
    assert set(enum) == {"media", "music", "weather", "email", "charts"}


def test_http_500_falls_to_the_embedding_step(index: RoutingIndex, server: str, embed) -> None:
    _ChatHandler.behaviour = "error"
    result = _route(index, server, embed, query="play some jazz")
    llm, embedding = result.strategy.steps[:2]
    assert llm["status"] == "error" and "500" in llm["detail"]
    assert embedding["step"] == "embedding" and embedding["status"] == "ok"
    assert result.names[0] == "play_music"


def test_timeout_falls_to_the_embedding_step(index: RoutingIndex, server: str, embed) -> None:
    _ChatHandler.behaviour = "slow"
    started = time.perf_counter()
    result = _route(index, server, embed, query="play some jazz")
    assert time.perf_counter() - started < 1.2
    llm, embedding = result.strategy.steps[:2]
    assert llm["status"] == "error" and "Timeout" in llm["detail"]
    assert embedding["status"] == "ok" and result.names[0] == "play_music"
