import json

from engine import RouteRequest, RoutingIndex, route


def test_to_dict_has_the_spec_shape_and_is_json(index: RoutingIndex, embed) -> None:
    answer = route(index, RouteRequest(query="send email"), embed_texts=embed).to_dict()
    assert set(answer) == {"tools", "matches", "categories", "guidance", "instruction", "strategy", "tokens"}
    assert {"used", "confidence", "fallback"} <= set(answer["strategy"])
    assert set(answer["tokens"]) == {"selected", "catalog", "saved", "saved_pct"}
    json.dumps(answer)


def test_names_format_returns_plain_names(index: RoutingIndex, embed) -> None:
    answer = route(index, RouteRequest(query="send email", format="names", limit=1), embed_texts=embed).to_dict()
    assert answer["tools"] == ["send_email", "ask_user"]
