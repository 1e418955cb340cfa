"""An Anthropic messages body whose text comes as a list of content parts."""
import json

from tests.gateway.requests_shapes import anthropic_body, anthropic_tools, names, post_filter


def test_text_parts_are_the_query(db, route_client) -> None:
    body = anthropic_body("Translate 'good morning' into French")
    response = post_filter(route_client, body, "limit=2")
    assert response.status_code == 200, response.content
    filtered = json.loads(response.content)
    assert names(filtered)[0] == "translate_text"
    assert len(filtered["tools"]) == 2
    assert filtered["tools"][0] == anthropic_tools()[5]
    assert filtered["messages"] == body["messages"]


def test_several_text_parts_and_other_parts_mixed(db, route_client) -> None:
    body = anthropic_body("")
    body["messages"][-1]["content"] = [
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}},
        {"type": "text", "text": "What is the share price"},
        {"type": "text", "text": "of the ticker AAPL today?"},
    ]
    filtered = json.loads(post_filter(route_client, body, "limit=1").content)
    assert names(filtered) == ["get_stock_price"]


def test_openai_content_parts_work_the_same(db, route_client) -> None:
    from tests.gateway.requests_shapes import openai_body

    body = openai_body("")
    body["messages"][-1]["content"] = [{"type": "text", "text": "play some jazz music"}]
    filtered = json.loads(post_filter(route_client, body, "limit=1").content)
    assert names(filtered) == ["play_music"]
