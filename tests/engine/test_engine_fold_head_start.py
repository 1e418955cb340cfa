"""A tool whose hypothetical queries fold into its vector does not win requests about other tools
only because its queries are worded like requests (engine.vectors.fold_head_start).

In the concept embedder, "ask" and "question" vote for one dimension, as the wording every
request shares does in a real model's space.
"""
from __future__ import annotations

import numpy as np

from engine import RouteRequest, ToolEntry, route, tool_embedding_text
from engine.vectors import HEAD_START_SAMPLE_TOOLS, HEAD_START_SHARE, VectorIndex, normalise
from tests.engine.conftest import concept_embed

WEATHER = ToolEntry("get_weather", "Weather forecast and rain", None, {})
MAIL = ToolEntry("send_mail", "Send an email", None, {},
                 hypothetical_queries=("ask about email question", "question about my mail"))


def _own_vector(tool: ToolEntry) -> np.ndarray:
    return concept_embed(tool_embedding_text(tool.name, tool.description, tool.category, tool.parameters))


def _vector_route(make_index, embed, tools: tuple[ToolEntry, ...], query: str):
    index = make_index(tools, ())
    return route(index, RouteRequest(query=query, strategy="vector", limit=2, explain=True), embed_texts=embed)


def test_a_request_worded_like_another_tools_queries_still_finds_its_own_tool(make_index, embed) -> None:
    result = _vector_route(make_index, embed, (WEATHER, MAIL), "ask the user: rain?")
    assert result.names[0] == "get_weather"


def test_the_tool_still_wins_the_requests_its_queries_are_about(make_index, embed) -> None:
    result = _vector_route(make_index, embed, (WEATHER, MAIL), "a question about my email")
    assert result.names[0] == "send_mail"


def test_what_is_taken_back_is_the_share_of_what_folding_gained_towards_the_average_query(make_index, embed) -> None:
    index = make_index((WEATHER, MAIL), ())
    own = _own_vector(MAIL)
    folded, plain = index.vectors.tool_rows([index.position["send_mail"], index.position["get_weather"]])
    query_mean = np.mean([concept_embed(q) for q in MAIL.hypothetical_queries], axis=0)
    taken_back = HEAD_START_SHARE * (float(folded @ query_mean) - float(own @ query_mean))
    query = "a question about my email, and rain"
    result = route(index, RouteRequest(query=query, strategy="vector", limit=2, explain=True), embed_texts=embed)
    score = {m.name: m.semantic_score for m in result.matches}
    assert taken_back > 0.1
    # The stored rows are int8, which moves the measured gain a little (engine/vectors.py).
    assert abs(score["send_mail"] - (float(folded @ concept_embed(query)) - taken_back)) < 5e-3
    assert abs(score["get_weather"] - float(plain @ concept_embed(query))) < 1e-5  # a plain tool keeps its cosine


def test_queries_that_say_what_the_description_says_gain_nothing_and_lose_nothing(make_index, embed) -> None:
    mail = ToolEntry("send_mail", "Send an email", None, {}, hypothetical_queries=("send email", "email"))
    result = _vector_route(make_index, embed, (WEATHER, mail), "email")
    assert result.matches[0].name == "send_mail" and abs(result.matches[0].semantic_score - 1.0) < 1e-5


def test_nothing_is_taken_back_when_every_tool_has_queries(make_index, embed) -> None:
    weather = ToolEntry("get_weather", "Weather forecast and rain", None, {},
                        hypothetical_queries=("ask if it will rain",))
    result = _vector_route(make_index, embed, (weather, MAIL), "a question about my email")
    own = _own_vector(MAIL)
    folded = normalise(own + sum(concept_embed(q) for q in MAIL.hypothetical_queries))
    assert result.matches[0].name == "send_mail"
    # The stored rows are int8: a cosine moves by at most about 0.002 (engine/vectors.py).
    assert abs(result.matches[0].semantic_score - float(folded @ concept_embed("a question about my email"))) < 3e-3


def test_a_large_catalog_measures_the_head_start_on_a_sample_close_to_all_of_it() -> None:
    rng = np.random.default_rng(5)
    n, folded_count, dim = 10_000, 6_000, 32
    assert folded_count > HEAD_START_SAMPLE_TOOLS
    style = rng.normal(size=dim)  # what requests share, as in the tests above
    names = [f"tool_{i:05d}" for i in range(n)]
    own = {name: rng.normal(size=dim).astype(np.float32) for name in names}
    queries = {name: (rng.normal(size=(2, dim)) + 2 * style).astype(np.float32) for name in names[:folded_count]}
    index = VectorIndex(names, own, queries, {}, fold=1.0, fold_mode="sum")
    units = {name: normalise(v) for name, v in own.items()}
    rows = np.vstack([q / np.linalg.norm(q, axis=1, keepdims=True) for q in queries.values()])
    mean = rows.mean(axis=0)
    stored = index.tool_rows(list(range(folded_count)))
    exact = HEAD_START_SHARE * np.mean([float(stored[i] @ mean) - float(units[names[i]] @ mean)
                                        for i in range(folded_count)])
    assert index.fold_penalty is not None
    assert abs(float(index.fold_penalty[0]) - exact) < 0.01 * exact
    assert not index.fold_penalty[folded_count:].any()  # plain tools keep their cosine
