"""Robustness: the engine beside both baselines on every dev set perturbed the ways a stranger's
catalog or traffic may differ from the dev sets.

    .venv/bin/python bench/robustness.py [--data-dir DIR] [--tiny]

The product is judged on catalogs it has never seen, and issue 12 asks for a ranking that never
falls below either baseline on any catalog. Each dev set (routed as it is, as bench/quality.py
does) is also routed after one perturbation at a time:

- opaque:  every tool renamed `fn_<hash>`, so only descriptions and parameters speak;
- short:   every description cut to its first 6 words (terse MCP servers);
- boiler:  the same sentence in front of every description (generated API docs);
- typo:    two neighbouring letters swapped in a quarter of the requests' longer words;
- keyword: requests cut to their content words, lower case (search-box traffic);
- paired:  two requests for different tools joined into one sentence with ", and", a request that
           needs both in one breath ("Show me the weather forecast for Lisbon this weekend, and
           send the weekly sales report to Anna").

Each is calibrated and routed exactly as the REST endpoint and `evaluate` do (bench/quality.py's
`dataset`, the service's default model), and the baselines are measured in the same run (the
cosine filter with all-MiniLM-L6-v2 as packaged, as the seeds ran it). The perturbations are seeded, so
two runs on the same data give the same requests and catalogs.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import random
import re
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a script from anywhere

from bench.common import Table, add_data_dir_argument, print_tables, save_results, use_data_dir  # noqa: E402
from bench.embedder import PLAIN, Embedder  # noqa: E402
from bench.quality import dataset, dev_sets, engine_rankings, metrics, read_queries  # noqa: E402
from routing.evaluation import bm25_baseline, cosine_baseline  # noqa: E402

SHORT_WORDS = 6
BOILERPLATE = ("This endpoint is part of the platform's public REST API. It requires a valid API key and "
               "returns a JSON object. ")
TYPO_SHARE = 0.25
# Words a search box user leaves out; what is left of a request is its content.
STOP_WORDS = frozenset(
    "a an the to of for in on at by with and or is are be i me my we you your it this that please can could "
    "would will do does want need like some any from about what how which there here have has get show tell "
    "give find".split())
SEED = 36
MAX_PAIRS = 300

Perturbation = Callable[[dict, list[dict]], tuple[dict, list[dict]]]


def opaque_name(name: str) -> str:
    return "fn_" + hashlib.sha1(name.encode("utf-8")).hexdigest()[:8]


def _with_tools(document: dict, change: Callable[[dict], dict]) -> dict:
    return {**document, "tools": [change(dict(t)) for t in document["tools"]]}


def opaque(document: dict, queries: list[dict]) -> tuple[dict, list[dict]]:
    def rename(tool: dict) -> dict:
        tool["related_tools"] = [opaque_name(r) for r in tool.get("related_tools") or []]
        tool["name"] = opaque_name(tool["name"])
        return tool

    return (_with_tools(document, rename),
            [{**q, "expected": [opaque_name(e) for e in q["expected"]]} for q in queries])


def short(document: dict, queries: list[dict]) -> tuple[dict, list[dict]]:
    def cut(tool: dict) -> dict:
        tool["description"] = " ".join((tool.get("description") or "").split()[:SHORT_WORDS])
        return tool

    return _with_tools(document, cut), queries


def boiler(document: dict, queries: list[dict]) -> tuple[dict, list[dict]]:
    def prefix(tool: dict) -> dict:
        tool["description"] = BOILERPLATE + (tool.get("description") or "")
        return tool

    return _with_tools(document, prefix), queries


def with_typos(text: str, rng: random.Random) -> str:
    words = []
    for word in text.split():
        if len(word) > 4 and word.isalpha() and rng.random() < TYPO_SHARE:
            i = rng.randrange(1, len(word) - 2)
            word = word[:i] + word[i + 1] + word[i] + word[i + 2:]
        words.append(word)
    return " ".join(words)


def typo(document: dict, queries: list[dict]) -> tuple[dict, list[dict]]:
    rng = random.Random(SEED)
    return document, [{**q, "query": with_typos(q["query"], rng)} for q in queries]


def keywords(text: str) -> str:
    kept = [w for w in re.findall(r"[\w'-]+", text.lower()) if w not in STOP_WORDS]
    return " ".join(kept) or text


def keyword(document: dict, queries: list[dict]) -> tuple[dict, list[dict]]:
    return document, [{**q, "query": keywords(q["query"])} for q in queries]


def joined(first: str, second: str) -> str:
    """One sentence of two requests: "Find a recipe, and translate it to French"."""
    second = second.strip()
    return f"{first.strip().rstrip('.?! ')}, and {second[:1].lower()}{second[1:]}"


def paired(document: dict, queries: list[dict]) -> tuple[dict, list[dict]]:
    """The one-tool requests, shuffled, joined two by two where they need different tools (at most
    MAX_PAIRS pairs): each pair is one request that needs both tools."""
    singles = [q for q in queries if len(q["expected"]) == 1]
    random.Random(SEED).shuffle(singles)
    pairs = [{"query": joined(a["query"], b["query"]), "expected": [*a["expected"], *b["expected"]]}
             for a, b in zip(singles[0::2], singles[1::2], strict=False) if a["expected"] != b["expected"]]
    return document, pairs[:MAX_PAIRS]


PERTURBATIONS: dict[str, Perturbation] = {"opaque": opaque, "short": short, "boiler": boiler, "typo": typo,
                                          "keyword": keyword, "paired": paired}
COLUMNS = ["data set", "perturbation", "engine r@1", "engine r@5", "engine r@10", "BM25 r@5", "cosine r@5",
           "margin r@5 over the better baseline"]


def row(name: str, perturbation: str, document: dict, queries: list[dict], emb: Embedder, plain: Embedder) -> list:
    data = dataset(name, document, queries, emb)
    texts = [c.query for c in data.cases]
    auto = metrics(engine_rankings(data, "auto"), data.cases)
    bm25 = metrics(bm25_baseline(data.snapshot.tools, texts, 10), data.cases)["recall@5"]
    cosine = metrics(cosine_baseline(data.snapshot.tools, plain.encode(texts), plain.encode_queries, 10),
                     data.cases)["recall@5"]
    return [data.name, perturbation, auto["recall@1"], auto["recall@5"], auto["recall@10"], bm25, cosine,
            round(auto["recall@5"] - max(bm25, cosine), 4)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tiny", action="store_true", help="CI mode: the tiny sets in bench/data/tiny")
    add_data_dir_argument(parser)
    args = parser.parse_args()
    data_dir = use_data_dir(args)
    started = time.perf_counter()
    emb, plain = Embedder(), Embedder(PLAIN)
    table = Table("Robustness: the default strategy (`auto`) beside both baselines on perturbed dev sets, recall@k",
                  COLUMNS)
    for path in dev_sets(data_dir):
        document = json.loads((path / "catalog.json").read_text())
        queries = read_queries(path / "queries.jsonl")
        table.add(*row(path.name, "none", document, queries, emb, plain))
        for name, perturb in PERTURBATIONS.items():
            table.add(*row(path.name, name, *perturb(document, queries), emb, plain))
            print(f"{path.name}, {name}: done at {time.perf_counter() - started:.0f} s", flush=True)
    below = sum(1 for r in table.rows if r[-1] < 0)
    table.notes += [f"{len(table.rows)} runs; the engine is below the better baseline in {below}",
                    "opaque: names fn_<hash>; short: descriptions cut to 6 words; boiler: one sentence before every "
                    "description; typo: letters swapped in a quarter of the requests' longer words; keyword: requests "
                    "cut to content words; paired: two one-tool requests joined with ', and', each pair needing both "
                    f"tools (at most {MAX_PAIRS} pairs)",
                    f"robustness run took {time.perf_counter() - started:.0f} s"]
    print_tables([table])
    save_results("robustness-tiny" if args.tiny else "robustness", [table])


if __name__ == "__main__":
    main()
