"""`X-Toolrouter-Tools-Found` names the deferred tools a turn's searches loaded; a tool name is the client's own
text, so one holding a newline, a NUL, a comma or a non-Latin letter must still give a valid answer header (each
such character percent-encoded, ordinary names as they are) rather than a 500 after the upstream has answered,
or a header line the client's HTTP library refuses."""
from __future__ import annotations

import json
from collections.abc import Iterator
from urllib.parse import unquote

import httpx2 as httpx
import pytest

from api.services import create_api_key
from tests.gateway.proxy_support import scripted_upstream
from tests.gateway.requests_shapes import responses_tools
from tests.gateway.usage_support import proxy_feedback
from tests.support.scripted_llm import ScriptedLLM

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("fresh_usage_buffers")]
ODD_NAMES = ["odd\ntool", "odd\x00tool", "odd,tool", "odd%41tool", "奇怪工具"]


def search_then_answer(kind: str, body: dict) -> dict:
    if body["input"][-1].get("type") == "function_call_output":
        return {"text": "done"}
    return {"call": "tool_search", "arguments": {"query": "an odd tool"}}


@pytest.fixture
def upstream(settings) -> Iterator[ScriptedLLM]:
    with scripted_upstream(settings, search_then_answer) as server:
        yield server


@pytest.mark.parametrize("name", ODD_NAMES, ids=["newline", "nul", "comma", "percent", "cjk"])
def test_a_found_tool_with_any_name_gives_a_valid_header(live_server, upstream, name) -> None:
    tools = [responses_tools()[0], {"type": "function", "name": name, "description": "an odd tool",
                                    "parameters": {"type": "object", "properties": {}}, "defer_loading": True}]
    response = httpx.post(f"{live_server.url}/v1/responses", timeout=60,
                          json={"model": "gpt-5", "input": "use the odd tool", "tools": tools},
                          headers={"Authorization": f"Bearer {create_api_key('odd-names')[1]}"})
    assert response.status_code == 200, response.text
    assert json.loads(response.text)["output"][-1]["content"][0]["text"] == "done"
    found = response.headers["x-toolrouter-tools-found"]
    assert found.isascii() and "," not in found and unquote(found) == name
    assert proxy_feedback(response.headers["x-toolrouter-request-id"]).used_tools == []


def test_ordinary_names_are_listed_as_they_are(live_server, upstream) -> None:
    tools = [responses_tools()[0], *({"type": "function", "name": n, "description": "an odd tool",
                                      "defer_loading": True} for n in ["odd.tool-1", "odd_tool:2"])]
    response = httpx.post(f"{live_server.url}/v1/responses", timeout=60,
                          json={"model": "gpt-5", "input": "use the odd tool", "tools": tools},
                          headers={"Authorization": f"Bearer {create_api_key('plain-names')[1]}"})
    assert sorted(response.headers["x-toolrouter-tools-found"].split(",")) == ["odd.tool-1", "odd_tool:2"]
