"""Where the query and the tools are: defaults, per request, per API key."""
import json

from api.models import ApiKey
from tests.gateway.requests_shapes import FUNCTIONS, names, openai_tools, post_filter
from tests.support.catalog import api_client

CUSTOM = {"input": {"prompt": "book me a flight to Lisbon"},
          "available_tools": [{"name": n, "summary": d} for n, d in FUNCTIONS]}


def test_paths_per_request_as_query_parameters(db, route_client) -> None:
    response = post_filter(route_client, CUSTOM, "query_path=$.input.prompt&tools_path=$.available_tools&limit=1")
    assert response.status_code == 200, response.content
    assert json.loads(response.content)["available_tools"] == [{"name": "book_flight", "summary": FUNCTIONS[3][1]}]


def test_paths_per_request_as_headers(db, route_client) -> None:
    response = post_filter(route_client, CUSTOM, "limit=1", HTTP_X_TOOLROUTER_QUERY_PATH="$.input.prompt",
                           HTTP_X_TOOLROUTER_TOOLS_PATH="$.available_tools")
    assert [t["name"] for t in json.loads(response.content)["available_tools"]] == ["book_flight"]


def test_paths_per_api_key_and_a_request_overrides_them(db) -> None:
    client = api_client(["route"], name="custom-shape")
    ApiKey.objects.filter(name="custom-shape").update(filter_query_path="$.input.prompt",
                                                      filter_tools_path="$.available_tools")
    response = post_filter(client, CUSTOM, "limit=1")
    assert [t["name"] for t in json.loads(response.content)["available_tools"]] == ["book_flight"]
    body = {"question": "convert 10 euros, how much is 10*1.1?", "available_tools": CUSTOM["available_tools"]}
    response = post_filter(client, body, "query_path=$.question&limit=1")
    assert [t["name"] for t in json.loads(response.content)["available_tools"]] == ["calculate"]


def test_legacy_functions_list_and_seed_description_fields(db, route_client) -> None:
    body = {"messages": [{"role": "user", "content": "what's the weather in Oslo"}],
            "functions": [{"name": "get_weather", "desc": "Weather forecast for a city"},
                          {"name": "send_email", "info": "Send an email"},
                          {"name": "calculate"}]}
    response = post_filter(route_client, body, "tools_path=$.functions&limit=1")
    assert json.loads(response.content)["functions"] == [body["functions"][0]]


def test_the_first_user_message_by_filter_expression(db, route_client) -> None:
    body = {"messages": [{"role": "user", "content": "email Bob the report"},
                         {"role": "assistant", "content": "Sure."}], "tools": openai_tools()}
    response = post_filter(route_client, body, "query_path=$.messages[?role=='user'].content&limit=1")
    assert names(json.loads(response.content)) == ["send_email"]
