"""Quality on every dev set, beside the two baselines measured in the same run.

    .venv/bin/python bench/quality.py [--data-dir DIR] [--tiny]

Data sets: every folder of the data directory that holds `catalog.json` and `queries.jsonl`
(default ../shared/data: bfcl-dev, plugins-dev, seal-dev), routed as they are; for each of
them with single-tool requests, a curated split of it (see `curated_split`), which measures
how the engine uses hypothetical queries; and the demo catalog with each of its hypothetical
queries left out of its tool in turn.

The engine runs exactly as the REST endpoint and `evaluate` do: the catalog is calibrated on
its own evidence first (engine.calibrate: its hypothetical queries held out, never the
requests measured here), then every request is routed (`limit 10, include_core false`, so a
core tool is ranked like any other), with the service's default model (all-MiniLM-L6-v2 adapted
to tool routing on the demo catalog's requests: toolcatalog/local_model_adapt.py). The demo
catalog's calibration is nested: its queries are cut into five folds, and the queries of each
fold are routed with the weights calibrated on the other four, and with a model adapted without
them (the default model learned from every one of them; --tiny routes them with the packaged
model instead, which never saw them).

Baselines, in the same run (routing/evaluation.py, the ones `evaluate` prints):
- BM25: plain Okapi BM25 over name and description;
- cosine: the seeds' semantic filter, the query's cosine to each tool's name and description
  with all-MiniLM-L6-v2 as packaged;
- on catalogs with hypothetical queries, the centroid reference too: the cosine to the
  normalised sum of the tool's name-and-description vector and its query vectors (same model).
Beside them, for what the adaptation brings: the engine with the packaged model, and the
cosine filter with the adapted one.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a script from anywhere

from bench.common import (  # noqa: E402
    DEMO_CATALOG,
    Table,
    add_data_dir_argument,
    print_tables,
    save_results,
    use_data_dir,
)
from bench.embedder import PLAIN, Embedder  # noqa: E402
from engine import (  # noqa: E402
    CalibrationResult,
    CatalogSnapshot,
    RankingParams,
    RouteRequest,
    RoutingIndex,
    build_index,
    calibrate,
    route,
)
from routing.evaluation import (  # noqa: E402
    QueryOutcome,
    baseline_tool_text,
    bm25_baseline,
    cosine_baseline,
    snapshot_from_document,
    summarise,
)

STRATEGIES = ("auto", "hybrid", "bm25", "vector", "hierarchical")
METRICS = ["recall@1", "recall@3", "recall@5", "recall@10", "MRR", "nDCG@10"]
LIMIT = 10
DEMO_FOLDS = 5


@dataclass
class Case:
    query: str
    expected: list[str]
    index: RoutingIndex
    emb: Embedder  # the model the index's vectors are of, which embeds the query too


@dataclass
class Dataset:
    name: str
    snapshot: CatalogSnapshot  # as calibrated and indexed (for the baselines: tools and queries)
    cases: list[Case]
    calibration: str
    notes: list[str] = field(default_factory=list)
    leave_one_out: bool = False  # each case's query is one of its tool's own, held out of the index

    @property
    def has_categories(self) -> bool:
        return bool(self.snapshot.categories)

    @property
    def has_queries(self) -> bool:
        return any(t.hypothetical_queries for t in self.snapshot.tools)


# -- data sets ---------------------------------------------------------------------------------
def dev_sets(data_dir: Path) -> list[Path]:
    return sorted(p for p in data_dir.iterdir() if (p / "catalog.json").exists() and (p / "queries.jsonl").exists())


def read_queries(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def curated_split(document: dict, queries: list[dict]) -> tuple[dict, list[dict], str] | None:
    """Some single-tool requests become their tool's hypothetical queries; the rest are asked.

    Each tool's single-tool requests, ordered by a hash of their text, give min(5, n // 3) to
    the tool's hypothetical queries; where no tool has three, every second single-tool request
    (by hash) goes to its tool instead. Nothing is written by hand: the queries are requests.
    """
    singles: dict[str, list[dict]] = {}
    for q in queries:
        if len(q["expected"]) == 1:
            singles.setdefault(q["expected"][0], []).append(q)
    if not singles:
        return None
    if max(len(v) for v in singles.values()) >= 3:
        chosen = [q for qs in singles.values() for q in sorted(qs, key=lambda q: _hash(q["query"]))[: min(5, len(qs) // 3)]]
    else:
        chosen = sorted((q for qs in singles.values() for q in qs), key=lambda q: _hash(q["query"]))[::2]
    curated: dict[str, list[str]] = {}
    for q in chosen:
        curated.setdefault(q["expected"][0], []).append(q["query"])
    tools = [{**t, "hypothetical_queries": [*(t.get("hypothetical_queries") or []), *curated.get(t["name"], [])]}
             for t in document["tools"]]
    taken = {id(q) for q in chosen}
    asked = [q for q in queries if id(q) not in taken]
    note = f"{len(chosen)} requests became hypothetical queries of {len(curated)} tools; {len(asked)} asked"
    return {**document, "tools": tools}, asked, note


def dataset(name: str, document: dict, queries: list[dict], emb: Embedder, notes: list[str] | None = None) -> Dataset:
    snapshot = snapshot_from_document(document, emb.encode, emb.model_id)
    result = calibrate(snapshot)
    snapshot = result.applied_to(snapshot)
    index = build_index(snapshot)
    cases = [Case(q["query"], list(q["expected"]), index, emb) for q in queries]
    return Dataset(f"{name} ({len(snapshot.tools)} tools, {len(cases)} requests)", snapshot, cases,
                   describe(result), notes or [])


def demo_dataset(model_for: Callable[[list[str]], Embedder], tiny: bool, model_note: str) -> Dataset:
    """The demo catalog's hypothetical queries, each routed with itself held out of its tool; a fold's
    queries with the weights calibrated on the other folds, by `model_for(the fold's queries)`."""
    document = json.loads(DEMO_CATALOG.read_text())
    tools = [t for t in document["tools"] if t.get("enabled", True)][:4 if tiny else None]
    held = [(tool["name"], query) for tool in tools for query in tool.get("hypothetical_queries") or []]
    cases: list[Case] = []
    chosen: list[str] = []
    full: CatalogSnapshot | None = None
    for fold in range(DEMO_FOLDS):
        in_fold = [pair for k, pair in enumerate(held) if k % DEMO_FOLDS == fold]
        if not in_fold:
            continue
        emb = model_for([query for _, query in in_fold])
        full = snapshot_from_document(document, emb.encode, emb.model_id)
        calibration = calibrate(_without_queries(full, in_fold))
        chosen.append(describe(calibration))
        for name, query in in_fold:
            snapshot = calibration.applied_to(_without_queries(full, [(name, query)]))
            cases.append(Case(query, [name], build_index(snapshot), emb))
    assert full is not None
    return Dataset(f"demo catalog ({len(full.tools)} tools, {len(cases)} hypothetical queries, leave-one-out)",
                   full, cases, " / ".join(dict.fromkeys(chosen)),
                   [f"nested calibration: each fold of {DEMO_FOLDS} routed with the weights calibrated on the others",
                    model_note],
                   leave_one_out=True)


def _without_queries(snapshot: CatalogSnapshot, held: Sequence[tuple[str, str]]) -> CatalogSnapshot:
    """`snapshot` without the (tool name, hypothetical query) pairs `held`, texts and vectors."""
    drop: dict[str, set[str]] = {}
    for name, query in held:
        drop.setdefault(name, set()).add(query)
    tools, vectors = [], dict(snapshot.query_vectors)
    for tool in snapshot.tools:
        gone = drop.get(tool.name)
        if not gone:
            tools.append(tool)
            continue
        keep = [j for j, query in enumerate(tool.hypothetical_queries) if query not in gone]
        tools.append(replace(tool, hypothetical_queries=tuple(tool.hypothetical_queries[j] for j in keep)))
        block = vectors.get(tool.name)
        if block is not None:
            rest = np.asarray(block)[[j for j in keep if j < len(block)]]
            if len(rest):
                vectors[tool.name] = rest
            else:
                del vectors[tool.name]
    return replace(snapshot, tools=tuple(tools), query_vectors=vectors)


def describe(result: CalibrationResult) -> str:
    used = result.evidence.get("used", 0)
    if not result.calibrated:
        return f"defaults ({used} evidence queries)" if used else "defaults (no evidence)"
    p, d = result.params, RankingParams()
    changed = [f"{k} {v}" for k, v in p.to_dict().items() if v != getattr(d, k)]
    return f"calibrated on {used}: " + ", ".join(changed)


# -- contenders --------------------------------------------------------------------------------
def engine_rankings(data: Dataset, strategy: str) -> list[list[str]]:
    """Each case routed as a web worker routes it: its query embedded by its model's query model."""
    return [route(case.index, RouteRequest(query=case.query, limit=LIMIT, strategy=strategy,  # type: ignore[arg-type]
                                           include_core=False), embed_texts=case.emb.encode_queries).names
            for case in data.cases]


def centroid_rankings(data: Dataset, emb: Embedder) -> list[list[str]]:
    """The issue's reference for hypothetical queries: cosine to unit(description vector + its query vectors)."""
    tools = data.snapshot.tools
    base = emb.encode([baseline_tool_text(t) for t in tools])
    sums = np.vstack([base[i] + (emb.encode(list(t.hypothetical_queries)).sum(axis=0) if t.hypothetical_queries else 0)
                      for i, t in enumerate(tools)])
    names = [t.name for t in tools]
    position = {name: i for i, name in enumerate(names)}
    queries = emb.encode([c.query for c in data.cases])
    rankings = []
    for case, q in zip(data.cases, queries, strict=True):
        matrix = sums
        if data.leave_one_out:  # the query is held out of its own tool, as the engine's index does
            matrix = sums.copy()
            matrix[position[case.expected[0]]] -= q
        scores = (matrix @ q) / np.linalg.norm(matrix, axis=1)
        rankings.append([names[i] for i in np.argsort(-scores, kind="stable")[:LIMIT]])
    return rankings


def metrics(rankings: list[list[str]], cases: Sequence[Case]) -> dict:
    return summarise(QueryOutcome(r, c.expected, 0.0, 0, 0) for r, c in zip(rankings, cases, strict=True))


# -- tables ------------------------------------------------------------------------------------
ENGINE_PLAIN = "engine `auto`, all-MiniLM-L6-v2 as packaged"
BM25 = "baseline: BM25 (name + description)"
COSINE = "baseline: cosine (name + description), the seeds' filter"
COSINE_ADAPTED = "cosine (name + description), with the adapted model"


def evaluate_dataset(data: Dataset, packaged: Dataset, plain: Embedder) -> tuple[Table, dict[str, list[list[str]]]]:
    """The engine's strategies on `data`, `auto` on `packaged` (the same set with the packaged model's
    vectors), and the baselines with the packaged model."""
    runs: dict[str, list[list[str]]] = {}
    for strategy in STRATEGIES:
        if strategy == "hierarchical" and not data.has_categories:
            continue
        runs[f"engine `{strategy}`"] = engine_rankings(data, strategy)
    runs[ENGINE_PLAIN] = engine_rankings(packaged, "auto")
    texts = [c.query for c in data.cases]
    runs[BM25] = bm25_baseline(data.snapshot.tools, texts, LIMIT)
    runs[COSINE] = cosine_baseline(data.snapshot.tools, plain.encode(texts), plain.encode_queries, LIMIT)
    if not data.leave_one_out:  # the adapted model learned from the demo catalog's queries
        emb = data.cases[0].emb
        runs[COSINE_ADAPTED] = cosine_baseline(data.snapshot.tools, emb.encode(texts), emb.encode_queries, LIMIT)
    if data.has_queries:
        runs["reference: cosine to unit(description + its queries)"] = centroid_rankings(data, plain)
    table = Table(f"Quality: {data.name}", ["method", *METRICS])
    for name, rankings in runs.items():
        s = metrics(rankings, data.cases)
        table.add(name, s["recall@1"], s["recall@3"], s["recall@5"], s["recall@10"], s["mrr"], s["ndcg@10"])
    multi = [i for i, c in enumerate(data.cases) if len(set(c.expected)) > 1]
    if multi:
        cases = [data.cases[i] for i in multi]
        for name, rankings in runs.items():
            if name.startswith("engine `auto`") or name.startswith("baseline"):
                s = metrics([rankings[i] for i in multi], cases)
                table.add(f"{name}, the {len(multi)} multi-tool requests", s["recall@1"], s["recall@3"],
                          s["recall@5"], s["recall@10"], s["mrr"], s["ndcg@10"])
    table.notes += [f"calibration: {data.calibration}", *data.notes]
    return table, runs


def latency_row(data: Dataset, emb: Embedder, requests: int) -> list:
    """Route p50/p95 in the engine with every query embedded fresh (no cache): the request and its
    needs in one provider call, as the route endpoint does. The requests are spread evenly over the set:
    a set may list its kinds in blocks (seal-dev: 200 one-tool requests, then 500 multi-tool)."""
    fresh = emb.fresh_many
    times = []
    count = min(requests, len(data.cases))
    for case in [data.cases[i * len(data.cases) // count] for i in range(count)]:
        started = time.perf_counter()
        route(case.index, RouteRequest(query=case.query), embed_texts=fresh)
        times.append((time.perf_counter() - started) * 1000)
    return [data.name, len(times), round(float(np.percentile(times, 50)), 2), round(float(np.percentile(times, 95)), 2)]


SUMMARY_COLUMNS = ["data set", "engine r@1", "engine r@5", "engine r@10", "BM25 r@5", "cosine r@5",
                   "margin r@5 over the better baseline", "engine r@5, packaged model", "calibration"]


def summary_row(table: Table, data: Dataset, runs: dict[str, list[list[str]]]) -> list:
    auto = metrics(runs["engine `auto`"], data.cases)
    bm25 = metrics(runs[BM25], data.cases)["recall@5"]
    cosine = metrics(runs[COSINE], data.cases)["recall@5"]
    packaged = metrics(runs[ENGINE_PLAIN], data.cases)["recall@5"]
    return [data.name, auto["recall@1"], auto["recall@5"], auto["recall@10"], bm25, cosine,
            round(auto["recall@5"] - max(bm25, cosine), 4), packaged, data.calibration]


def dev_datasets(data_dir: Path, emb: Embedder) -> list[Dataset]:
    """Every dev set under `data_dir` and, where it has single-tool requests, its curated split."""
    datasets: list[Dataset] = []
    for path in dev_sets(data_dir):
        document = json.loads((path / "catalog.json").read_text())
        queries = read_queries(path / "queries.jsonl")
        datasets.append(dataset(path.name, document, queries, emb))
        split = curated_split(document, queries)
        if split is not None:
            curated, asked, note = split
            datasets.append(dataset(f"{path.name}, curated split", curated, asked, emb, [note]))
    return datasets


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tiny", action="store_true", help="CI mode: the tiny sets in bench/data/tiny")
    add_data_dir_argument(parser)
    args = parser.parse_args()
    data_dir = use_data_dir(args)
    started = time.perf_counter()
    emb, plain = Embedder(), Embedder(PLAIN)
    datasets = dev_datasets(data_dir, emb)
    packaged = dev_datasets(data_dir, plain)
    if args.tiny:
        datasets.append(demo_dataset(lambda held: plain, True,
                                     "tiny run: routed with the packaged model, which never saw these requests"))
    else:
        datasets.append(demo_dataset(lambda held: Embedder(exclude=held), False,
                                     "each fold routed with the model adapted without its requests"))
    packaged.append(demo_dataset(lambda held: plain, args.tiny, "the packaged model"))
    summary = Table("Quality per data set: the default strategy (`auto`) beside both baselines, recall@k",
                    SUMMARY_COLUMNS)
    tables = [summary]
    for data, data_packaged in zip(datasets, packaged, strict=True):
        table, runs = evaluate_dataset(data, data_packaged, plain)
        summary.add(*summary_row(table, data, runs))
        tables.append(table)
        print(f"{data.name}: done at {time.perf_counter() - started:.0f} s", flush=True)
    summary.notes += [
        "recall@k: the share of a request's expected tools among the first k, averaged over requests; "
        "margin: engine recall@5 minus the better baseline's",
        f"engine: {emb.model_id} (all-MiniLM-L6-v2 adapted to tool routing on the demo catalog's requests, "
        "toolcatalog/local_model_adapt.py); baselines and `engine r@5, packaged model`: all-MiniLM-L6-v2 as packaged",
    ]
    latency = Table("Latency in the engine, default request, fresh query embedding (the request and its needs "
                    "embedded in one provider call)", ["data set", "requests", "p50 ms", "p95 ms"])
    for data in datasets:
        if not data.leave_one_out and "curated" not in data.name:
            latency.add(*latency_row(data, emb, 20 if args.tiny else 300))
    latency.notes.append(f"query encoder: {emb.describe()}; {os.cpu_count()} cores, load average "
                         f"{os.getloadavg()[0]:.1f} at the end")
    tables.insert(1, latency)
    summary.notes.append(f"quality run took {time.perf_counter() - started:.0f} s")
    print_tables(tables)
    save_results("quality-tiny" if args.tiny else "quality", tables)


# rank-bm25's word rule, kept for bench/speed.py's per-request BM25 contender.
def words(text: str) -> list[str]:
    import re

    return re.findall(r"[a-z0-9]+", text.lower())


if __name__ == "__main__":
    main()
