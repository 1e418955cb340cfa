"""A `$ref` that names a URL (`http://169.254.169.254/...`, `file:///etc/passwd`, a local server)
is never fetched by an import or a filter request: a local HTTP server in the test receives nothing."""
from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from tests.gateway.requests_shapes import openai_body, post_filter
from tests.support.catalog import api_client

pytestmark = pytest.mark.django_db


class Recorder(BaseHTTPRequestHandler):
    seen: list[str] = []

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        Recorder.seen.append(self.path)
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(b'{"type": "object", "properties": {"secret": {"type": "string"}}}')

    def log_message(self, *args) -> None:
        pass


@pytest.fixture
def listener() -> Iterator[str]:
    Recorder.seen = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), Recorder)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def refs(base: str) -> list[str]:
    return [f"{base}/schema.json", f"{base}/schema.json#/definitions/x", "file:///etc/passwd",
            "http://169.254.169.254/latest/meta-data/", f"{base}/other.yaml"]


def test_imports_never_fetch_a_ref(listener) -> None:
    curator = api_client(["catalog"], name="curator")
    urls = refs(listener)
    openapi = {"openapi": "3.1.0", "info": {"title": "t", "version": "1"},
               "components": {"schemas": {"Local": {"$ref": urls[1]}}},
               "paths": {"/a": {"post": {"operationId": "op_a", "parameters": [{"$ref": urls[0]}],
                                         "requestBody": {"$ref": urls[4], "content": {"application/json": {
                                             "schema": {"type": "object", "properties": {
                                                 u.rsplit("/", 1)[-1] or "x": {"$ref": u} for u in urls}}}}}}}}}
    tools = [{"name": f"t{i}", "description": "d", "parameters": {"type": "object", "properties": {"p": {"$ref": u}}}}
             for i, u in enumerate(urls)]
    for document in (openapi, tools, {"format": "toolcatalog/v1", "tools": tools},
                     [{"name": "m", "description": "d", "inputSchema": {"$ref": urls[0]}}]):
        response = curator.post("/api/v1/catalog/import", {"document": document}, format="json")
        assert response.status_code in (200, 400), response.content
    assert Recorder.seen == []


def test_filter_requests_never_fetch_a_ref(listener) -> None:
    client = api_client(["route"], name="filterer")
    tools = [{"type": "function", "function": {"name": f"f{i}", "description": "fetch weather",
                                                "parameters": {"$ref": u}}} for i, u in enumerate(refs(listener))]
    for strategy in ("bm25", "hybrid"):
        response = post_filter(client, openai_body("weather in Paris", tools=tools), f"strategy={strategy}")
        assert response.status_code == 200
    assert Recorder.seen == []
