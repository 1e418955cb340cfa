"""An OpenAI chat-completions body: the same body back with the relevant tools, most relevant first."""
import json

from tests.gateway.requests_shapes import names, openai_body, openai_tools, post_filter


def test_keeps_the_relevant_tools_first_and_the_rest_of_the_body(db, route_client) -> None:
    body = openai_body("What is the weather like in San Francisco?", temperature=0.2)
    response = post_filter(route_client, body, "limit=3")
    assert response.status_code == 200, response.content
    filtered = json.loads(response.content)
    assert names(filtered)[0] == "get_weather"
    assert len(filtered["tools"]) == 3
    assert {k: v for k, v in filtered.items() if k != "tools"} == {k: v for k, v in body.items() if k != "tools"}
    assert filtered["tools"][0] == openai_tools()[0]  # each tool's structure is untouched
    assert response["X-Toolrouter-Tools-Before"] == "8"
    assert response["X-Toolrouter-Tools-After"] == "3"
    saved = int(response["X-Toolrouter-Tokens-Saved"])
    assert saved > 0
    from engine import count_text, definition_json

    before, after = count_text(definition_json(body["tools"])), count_text(definition_json(filtered["tools"]))
    assert saved == before - after
    print(f"\nfilter example: tools 8 -> 3 {names(filtered)}, tool tokens {before} -> {after}, saved {saved}")


def test_default_top_k_is_five(db, route_client) -> None:
    response = post_filter(route_client, openai_body("send an email to my boss"))
    filtered = json.loads(response.content)
    assert names(filtered)[0] == "send_email"
    assert len(filtered["tools"]) == 5


def test_needs_the_route_scope(db) -> None:
    from tests.support.catalog import api_client

    response = post_filter(api_client(["catalog"], name="catalog-only"), openai_body("weather"))
    assert response.status_code == 403
    assert response.json()["error"] == "forbidden"
