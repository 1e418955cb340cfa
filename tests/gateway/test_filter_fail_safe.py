"""The filter gateway's fail-safe rules: select: terms, pinned tools, adaptive mode, never zero tools."""
import json

from api.models import ApiKey
from tests.gateway.requests_shapes import names, openai_body, post_filter
from toolcatalog.models import Tool


def test_select_terms_are_honoured_before_the_ranking(db, route_client) -> None:
    body = openai_body("select:play_music what is the weather in Paris")
    kept = names(json.loads(post_filter(route_client, body, "limit=1").content))
    assert kept == ["play_music", "get_weather"]
    body = openai_body("select:/^(book|send)_/")
    assert names(json.loads(post_filter(route_client, body, "limit=1").content)) == ["book_flight", "send_email"]


def test_the_keys_pinned_tools_are_kept(db, route_client) -> None:
    Tool.objects.create(name="calculate", description="Perform mathematical calculations")
    ApiKey.objects.filter(name="test-client").update(pinned_tools=["calculate"])
    kept = names(json.loads(post_filter(route_client, openai_body("send an email"), "limit=1").content))
    assert kept == ["calculate", "send_email"]


def test_adaptive_mode_and_nothing_selected(db, route_client) -> None:
    kept = names(json.loads(post_filter(route_client, openai_body("send an email to Bob"), "mode=adaptive").content))
    assert 1 <= len(kept) < 5 and kept[0] == "send_email"
    response = post_filter(route_client, openai_body("zzqx qqzx"), "strategy=bm25")
    assert response["X-Toolrouter-Fail-Safe"] == "nothing-selected"
    assert len(names(json.loads(response.content))) == 8  # every tool stays rather than none
