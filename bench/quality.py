"""Quality table: every engine strategy and three baselines, on bfcl-dev and on the demo catalog.

    .venv/bin/python bench/quality.py [--tiny]

bfcl-dev: its 605 queries over its 870 tools. Demo catalog: its hypothetical queries in
leave-one-out (each query routed by an index built with that query removed from its tool,
expected = that tool). The engine ranks with `limit 10, include_core false` (so a core tool
is ranked like any other); its token figures come from a second, default request (limit 5,
core tools included), exactly what an agent would be sent.

Baselines, in the same run:
- rank-bm25 (BM25Okapi) over name + description, lower-cased alphanumeric words;
- description-only cosine with the same MiniLM model (the seeds' semantic tool filtering:
  the tool's description, else its name, against the query);
- keyword category routing with the seeds' fallbacks (JSPLIT without its LLM: the category
  with most keyword hits, else the first enabled category; it sends the whole category,
  ranked in catalog order). bfcl-dev has no categories, so it does not apply there.

Tokens: cl100k tokens of the OpenAI-format definitions sent per request (engine: its own
`tokens.selected`; baselines: their top 5, or the whole category), against the whole catalog.
"""
from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a script from anywhere

from bench.calibrate_auto import MODEL_ID, Embedder
from bench.common import DEMO_CATALOG, Table, add_data_dir_argument, bfcl_dir, print_tables, save_results, use_data_dir
from engine import CatalogSnapshot, RouteRequest, RoutingIndex, ToolEntry, build_index, route
from routing.evaluation import QueryOutcome, snapshot_from_document, summarise

ENGINE_STRATEGIES = ("bm25", "vector", "hybrid", "auto", "hierarchical")
COLUMNS = ["method", "recall@1", "recall@3", "recall@5", "recall@10", "MRR", "nDCG@10",
           "tokens sent (mean)", "whole catalog", "saved %"]


@dataclass
class Case:
    """One query with the index it is routed against (leave-one-out builds one per query)."""

    query: str
    expected: list[str]
    index: RoutingIndex


@dataclass
class Dataset:
    name: str
    snapshot: CatalogSnapshot
    cases: list[Case]
    embed: Callable[[str], np.ndarray]
    has_categories: bool
    notes: list[str] = field(default_factory=list)


# -- data sets ---------------------------------------------------------------------------------
def bfcl_dataset(emb: Embedder, tiny: bool) -> Dataset:
    document = json.loads((bfcl_dir() / "catalog.json").read_text())
    queries = [json.loads(line) for line in (bfcl_dir() / "queries.jsonl").read_text().splitlines() if line.strip()]
    if tiny:
        queries = queries[:15]
        document = {**document, "tools": _tiny_tools(document["tools"], queries)}
    snapshot = snapshot_from_document(document, emb.encode, MODEL_ID)
    index = build_index(snapshot)
    cases = [Case(q["query"], list(q["expected"]), index) for q in queries]
    return Dataset(f"bfcl-dev ({len(snapshot.tools)} tools, {len(cases)} queries)", snapshot, cases,
                   _query_embedder(emb, [c.query for c in cases]), has_categories=False)


def _tiny_tools(tools: list[dict], queries: list[dict], size: int = 100) -> list[dict]:
    """The tools the queries expect, then the first others, up to `size`."""
    wanted = {name for q in queries for name in q["expected"]}
    chosen = [t for t in tools if t["name"] in wanted]
    chosen += [t for t in tools if t["name"] not in wanted][: max(0, size - len(chosen))]
    return chosen


def demo_dataset(emb: Embedder, tiny: bool) -> Dataset:
    document = json.loads(DEMO_CATALOG.read_text())
    snapshot = snapshot_from_document(document, emb.encode, MODEL_ID)
    cases = []
    tools = list(snapshot.tools)
    if tiny:
        tools = tools[:4]
    for tool in tools:
        for j, query in enumerate(tool.hypothetical_queries):
            cases.append(Case(query, [tool.name], build_index(_without_query(snapshot, tool, j))))
    return Dataset(f"demo catalog ({len(snapshot.tools)} tools, {len(cases)} hypothetical queries, leave-one-out)",
                   snapshot, cases, _query_embedder(emb, [c.query for c in cases]), has_categories=True)


def _without_query(snapshot: CatalogSnapshot, tool: ToolEntry, j: int) -> CatalogSnapshot:
    queries = tool.hypothetical_queries[:j] + tool.hypothetical_queries[j + 1:]
    tools = tuple(replace(t, hypothetical_queries=queries) if t.name == tool.name else t for t in snapshot.tools)
    query_vectors = dict(snapshot.query_vectors)
    vectors = query_vectors.get(tool.name)
    if vectors is not None:
        rest = np.delete(vectors, j, axis=0)
        if len(rest):
            query_vectors[tool.name] = rest
        else:
            del query_vectors[tool.name]
    return replace(snapshot, tools=tools, query_vectors=query_vectors)


def _query_embedder(emb: Embedder, queries: Sequence[str]) -> Callable[[str], np.ndarray]:
    """Precomputed query vectors (quality does not time anything); sub-queries encoded on demand."""
    vectors = dict(zip(queries, emb.encode(list(queries)))) if queries else {}

    def embed(text: str) -> np.ndarray:
        vector = vectors.get(text)
        return vector if vector is not None else emb.encode([text])[0]
    return embed


# -- contenders --------------------------------------------------------------------------------
def engine_outcomes(data: Dataset, strategy: str) -> list[QueryOutcome]:
    outcomes = []
    for case in data.cases:
        ranked = route(case.index, RouteRequest(query=case.query, limit=10, strategy=strategy, include_core=False),
                       embed_query=data.embed)
        sent = route(case.index, RouteRequest(query=case.query, strategy=strategy), embed_query=data.embed)
        outcomes.append(QueryOutcome(ranked.names, case.expected, 0.0, sent.tokens.selected, sent.tokens.catalog))
    return outcomes


_WORD = re.compile(r"[a-z0-9]+")


def words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def rank_bm25_outcomes(data: Dataset) -> list[QueryOutcome]:
    from rank_bm25 import BM25Okapi

    tools = data.snapshot.tools
    bm25 = BM25Okapi([words(f"{t.name} {t.description}") for t in tools])
    names = [t.name for t in tools]
    return [_top_k_outcome(data, case, names, np.asarray(bm25.get_scores(words(case.query)))) for case in data.cases]


def description_cosine_outcomes(data: Dataset, emb: Embedder) -> list[QueryOutcome]:
    tools = data.snapshot.tools
    matrix = emb.encode([t.description or t.name for t in tools])
    names = [t.name for t in tools]
    return [_top_k_outcome(data, case, names, matrix @ data.embed(case.query)) for case in data.cases]


def _top_k_outcome(data: Dataset, case: Case, names: list[str], scores: np.ndarray, k: int = 10) -> QueryOutcome:
    order = np.argsort(-scores, kind="stable")[:k]
    ranked = [names[i] for i in order]
    return QueryOutcome(ranked, case.expected, 0.0, _tokens(case.index, ranked[:5]), _catalog_tokens(case.index))


def keyword_category_outcomes(data: Dataset) -> list[QueryOutcome]:
    categories = data.snapshot.categories
    by_category: dict[str, list[str]] = {}
    for t in data.snapshot.tools:
        if t.category:
            by_category.setdefault(t.category, []).append(t.name)
    outcomes = []
    for case in data.cases:
        chosen = keyword_category(case.query, categories)
        ranked = by_category.get(chosen, [])
        outcomes.append(QueryOutcome(ranked, case.expected, 0.0, _tokens(case.index, ranked),
                                     _catalog_tokens(case.index)))
    return outcomes


def keyword_category(query: str, categories) -> str | None:
    """JSPLIT's fallbacks: keyword matching, then the first enabled category."""
    query_words = set(words(query))
    hits = [(sum(1 for k in c.keywords if set(words(k)) <= query_words and words(k)), -i, c.name)
            for i, c in enumerate(categories)]
    best = max(hits, default=None)
    if best and best[0] > 0:
        return best[2]
    return categories[0].name if categories else None


def _tokens(index: RoutingIndex, names: Sequence[str]) -> int:
    positions = [index.position[n] for n in names if n in index.position]
    return int(index.token_counter.counts(positions, "openai").sum()) if positions else 0


def _catalog_tokens(index: RoutingIndex) -> int:
    return int(index.token_counter.counts(np.arange(len(index)), "openai").sum())


# -- the table ---------------------------------------------------------------------------------
def quality_table(data: Dataset, emb: Embedder) -> Table:
    table = Table(f"Quality: {data.name}", COLUMNS)
    rows: list[tuple[str, list[QueryOutcome] | None]] = []
    for strategy in ENGINE_STRATEGIES:
        if strategy == "hierarchical" and not data.has_categories:
            continue
        rows.append((f"engine `{strategy}`", engine_outcomes(data, strategy)))
    rows.append(("baseline: rank-bm25 BM25Okapi, name + description", rank_bm25_outcomes(data)))
    rows.append(("baseline: description-only MiniLM cosine (seeds' filter)", description_cosine_outcomes(data, emb)))
    rows.append(("baseline: keyword category routing (seeds' fallbacks)",
                 keyword_category_outcomes(data) if data.has_categories else None))
    for name, outcomes in rows:
        if outcomes is None:
            table.add(name, *([None] * 6), None, None, "n/a: no categories")
            continue
        s = summarise(outcomes)
        table.add(name, s["recall@1"], s["recall@3"], s["recall@5"], s["recall@10"], s["mrr"], s["ndcg@10"],
                  s["tokens"]["selected_mean"], s["tokens"]["all_tools"], s["tokens"]["saved_pct"])
    table.notes += data.notes
    return table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tiny", action="store_true", help="CI mode: ~100 tools, a few queries")
    add_data_dir_argument(parser)
    args = parser.parse_args()
    use_data_dir(args)
    started = time.perf_counter()
    emb = Embedder()
    tables = [quality_table(bfcl_dataset(emb, args.tiny), emb), quality_table(demo_dataset(emb, args.tiny), emb)]
    tables[-1].notes.append("hierarchical runs without a category LLM (none is configured in a benchmark): "
                            "its chain falls back to keyword and embedding category steps.")
    tables[-1].notes.append(f"quality run took {time.perf_counter() - started:.0f} s")
    print_tables(tables)
    save_results("quality-tiny" if args.tiny else "quality", tables)


if __name__ == "__main__":
    main()
