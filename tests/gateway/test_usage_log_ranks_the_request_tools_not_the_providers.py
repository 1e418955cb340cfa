"""The usage log lists what the filter chose among, in rank order: the provider's own tools it keeps as sent
(`web_search`, `mcp`, `custom`... in a Responses body; a nameless built-in anywhere) are not logged as offered
tools called "tool", nor ranked ahead of the functions. Otherwise the best-ranked function a model calls is
recorded at rank 6 behind five built-ins, and the learning loop reads it as "used, but ranked low"."""
from __future__ import annotations

import httpx2 as httpx
import pytest

from tests.gateway.requests_shapes import (
    FUNCTIONS,
    RESPONSES_BUILT_INS,
    openai_body,
    openai_tools,
    post_filter,
    responses_body,
    responses_tools,
)
from tests.gateway.usage_support import logged_request, proxy_feedback
from tests.support.openai_server import FakeOpenAI

FUNCTION_NAMES = [name for name, _ in FUNCTIONS]


def offered_names(request_id: str) -> list[str]:
    return [entry["name"] for entry in sorted(logged_request(request_id).results, key=lambda entry: entry["rank"])]


@pytest.mark.django_db
@pytest.mark.parametrize("body", [
    responses_body("what is the weather in Paris", tools=[*RESPONSES_BUILT_INS, *responses_tools()]),
    openai_body("what is the weather in Paris", tools=[{"type": "web_search_preview"}, *openai_tools()]),
])
def test_the_filter_logs_the_ranked_tools_first_and_no_built_in(route_client, body) -> None:
    response = post_filter(route_client, body, "limit=2")
    assert response.status_code == 200, response.content
    assert offered_names(response["X-Toolrouter-Request-Id"])[:1] == ["get_weather"]
    assert set(offered_names(response["X-Toolrouter-Request-Id"])) <= set(FUNCTION_NAMES)


@pytest.mark.django_db
def test_a_passed_through_body_logs_its_functions_ranked_from_one(route_client) -> None:
    body = responses_body("", tools=[*RESPONSES_BUILT_INS, *responses_tools()])
    response = post_filter(route_client, body)
    assert response["X-Toolrouter-Passthrough"] == "no-query"
    results = logged_request(response["X-Toolrouter-Request-Id"]).results
    assert [(entry["name"], entry["rank"]) for entry in results] == [(name, rank) for rank, name in
                                                                      enumerate(FUNCTION_NAMES, start=1)]


def answer_calling_a_function_and_the_custom_tool(upstream: FakeOpenAI) -> None:
    whole = upstream.response

    def answer(body: dict) -> dict:
        custom = {"type": "custom_tool_call", "id": "ctc_0", "call_id": "call_9", "name": "run_sql", "input": "select 1"}
        return {**whole(body), "output": [*whole(body)["output"], custom]}

    upstream.calls_tools = lambda body: ["get_weather"]
    upstream.response = answer  # type: ignore[method-assign]


@pytest.mark.django_db(transaction=True)
def test_the_proxy_records_the_top_function_at_rank_one_and_no_provider_tool(live_server, upstream, our_key) -> None:
    answer_calling_a_function_and_the_custom_tool(upstream)
    body = responses_body("what is the weather in Paris", tools=[*RESPONSES_BUILT_INS, *responses_tools()])
    response = httpx.post(f"{live_server.url}/v1/responses", json=body,
                          headers={"Authorization": f"Bearer {our_key}", "X-Toolrouter-Limit": "2"})
    assert response.status_code == 200
    feedback = proxy_feedback(response.headers["x-toolrouter-request-id"])
    assert (feedback.used_tools, feedback.used_ranks, feedback.missed) == (["get_weather"], [1], [])
