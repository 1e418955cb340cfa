"""On /v1/responses the body is a Responses API request because of the path, not because it has `input`:
one that names a stored `prompt` and a `conversation` instead (its query found by the key's query_path)
still has its `custom` and `namespace` tools kept as the provider's, not ranked as the client's functions."""
from __future__ import annotations

import httpx2 as httpx
import pytest

from api.models import ApiKey
from api.services import create_api_key
from tests.gateway.proxy_support import last_upstream_request
from tests.gateway.requests_shapes import responses_tools

pytestmark = pytest.mark.django_db(transaction=True)

PROVIDER_TOOLS = [
    {"type": "custom", "name": "weather_report", "description": "Get the current weather forecast for a city"},
    {"type": "namespace", "name": "forecasts", "description": "Weather forecast tools for any city",
     "tools": [{"type": "function", "name": "hourly", "description": "Hourly weather forecast",
                "parameters": {"type": "object", "properties": {}}}]},
]


def test_a_body_without_input_keeps_its_provider_tools_out_of_the_ranking(live_server, upstream) -> None:
    api_key, key = create_api_key("prompt-agent", ["route"], None)
    ApiKey.objects.filter(pk=api_key.pk).update(filter_query_path="$.prompt.variables.question")
    body = {"model": "gpt-5", "conversation": "conv_1", "tools": [*PROVIDER_TOOLS, *responses_tools()],
            "prompt": {"id": "pmpt_1", "variables": {"question": "what is the weather forecast in Paris"}}}
    response = httpx.post(f"{live_server.url}/v1/responses", json=body,
                          headers={"Authorization": f"Bearer {key}", "X-Toolrouter-Limit": "2"})
    assert response.status_code == 200, response.text
    sent = last_upstream_request(upstream, "/responses")["body"]["tools"]
    functions = [tool["name"] for tool in sent if tool["type"] == "function"]
    assert len(functions) == 2 and functions[0] == "get_weather"
    assert sent[:2] == PROVIDER_TOOLS  # as sent, where the client put them
    assert response.headers["x-toolrouter-tools-after"] == "4"
