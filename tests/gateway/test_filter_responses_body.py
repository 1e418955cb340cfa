"""An OpenAI Responses API body (`input`, flat function tools, the provider's own tools): the filter
ranks the function tools by the last user input text and keeps the forced tool and every built-in."""
from __future__ import annotations

import json

import pytest

from tests.gateway.requests_shapes import RESPONSES_BUILT_INS, post_filter, responses_body, responses_tools
from tests.gateway.usage_support import logged_request

pytestmark = pytest.mark.django_db
FORCE_TRANSLATE = {"type": "function", "name": "translate_text"}


def tool_names(body: dict) -> list[str]:
    return [t.get("name") or t["type"] for t in body["tools"]]


def test_keeps_the_relevant_functions_the_forced_one_and_every_built_in(route_client) -> None:
    body = responses_body("What is the weather like in San Francisco?", tools=responses_tools() + RESPONSES_BUILT_INS,
                          tool_choice=FORCE_TRANSLATE, temperature=0.2)
    response = post_filter(route_client, body, "limit=2")
    assert response.status_code == 200, response.content
    filtered = json.loads(response.content)
    ranked = [t["name"] for t in filtered["tools"] if t["type"] == "function" and t["name"] != "translate_text"]
    assert len(ranked) == 2 and ranked[0] == "get_weather"
    assert "translate_text" in tool_names(filtered)  # forced: the provider refuses the request without it
    assert [t for t in filtered["tools"] if t in RESPONSES_BUILT_INS] == RESPONSES_BUILT_INS  # untouched
    assert len(filtered["tools"]) == 2 + 1 + len(RESPONSES_BUILT_INS)
    assert responses_tools()[0] in filtered["tools"]  # each function tool's structure is untouched
    assert {k: v for k, v in filtered.items() if k != "tools"} == {k: v for k, v in body.items() if k != "tools"}
    assert (response["X-Toolrouter-Tools-Before"], response["X-Toolrouter-Tools-After"]) == ("13", "8")


def test_a_string_input_is_the_query_unless_a_query_path_is_given(route_client) -> None:
    body = {**responses_body(""), "input": "send an email to my boss", "metadata": {"topic": "play some jazz"}}
    response = post_filter(route_client, body, "limit=1")
    assert tool_names(json.loads(response.content)) == ["send_email"]
    assert logged_request(response["X-Toolrouter-Request-Id"]).query == "send an email to my boss"
    response = post_filter(route_client, body, "limit=1&query_path=$.metadata.topic")
    assert tool_names(json.loads(response.content)) == ["play_music"]


def test_the_query_is_the_last_user_text_before_the_function_call_outputs(route_client) -> None:
    body = responses_body("")
    body["input"] = [
        {"role": "developer", "content": "Answer briefly."},
        {"role": "user", "content": "play some jazz"},
        {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Playing."}]},
        {"role": "user", "content": [{"type": "input_text", "text": "now translate hello into Spanish"}]},
        {"type": "function_call", "call_id": "call_1", "name": "translate_text", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "call_1", "output": "weather stock flight"},
    ]
    response = post_filter(route_client, body, "limit=1")
    assert tool_names(json.loads(response.content)) == ["translate_text"]
    assert logged_request(response["X-Toolrouter-Request-Id"]).query == "now translate hello into Spanish"


def test_a_follow_up_turn_is_filtered_by_its_new_input_alone(route_client) -> None:
    body = responses_body("book a flight to Lisbon", previous_response_id="resp_earlier")
    response = post_filter(route_client, body, "limit=1")
    assert response.status_code == 200 and "X-Toolrouter-Passthrough" not in response
    assert tool_names(json.loads(response.content)) == ["book_flight"]



def test_a_body_with_openais_own_tool_search_goes_on_unchanged(route_client) -> None:
    deferred = [{**tool, "defer_loading": True} for tool in responses_tools()]
    body = responses_body("What is the weather like in San Francisco?", tools=[*deferred, {"type": "tool_search"}])
    response = post_filter(route_client, body, "limit=2")
    assert response.status_code == 200 and response["X-Toolrouter-Passthrough"] == "upstream-tool-search"
    assert json.loads(response.content) == body  # the upstream searches every deferred tool itself
