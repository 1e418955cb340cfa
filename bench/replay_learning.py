"""Replay logged traffic through the learning loop and measure what it buys on unseen requests.

    .venv/bin/python -m toolrouter.devservices -- .venv/bin/python bench/replay_learning.py \\
        --data-dir ../shared/data            # every set under it (bfcl-dev, plugins-dev, seal-dev), their
                                             # curated splits and the demo catalog
    ... bench/replay_learning.py --data-dir ../shared/data/seal-dev          # one set
    ... bench/replay_learning.py --tiny                                      # the test suite's run

A set is a folder with `catalog.json` (toolcatalog/v1) and `queries.jsonl` ({"query", "expected"}),
or a toolcatalog/v1 file whose tools carry hypothetical queries (the demo catalog,
toolcatalog/fixtures/demo_catalog.json): then those queries are the traffic and the catalog
starts without them. A set folder also gives its curated split, as bench/quality.py makes it
(some single-tool requests become hypothetical queries of their tools, the rest are the
traffic), except with --tiny. For each set, on a throw-away database:

1. the catalog is imported and embedded (the import service, then `reembed` in-process);
2. the traffic is split in two halves. "covered" (default): requests in a seeded random order go
   to the measured half only while every tool they expect already has a request in the learning
   half (and the halves stay even), so each measured request could in principle be helped;
   requests needing a tool no other request needs all go to the learning half. "random": a plain
   seeded 50/50 split;
3. the learning half is routed through the route service exactly as `POST /api/v1/route` serves
   it (defaults: limit 5, `auto`, core tools), logged in the usage log, and given the feedback the
   proxy or a client would record: `used_tools` = the expected tools that were offered,
   `missing_tools` = those that were not;
4. the suggestion pipeline runs with its default thresholds (usage/suggestions.py), every
   proposal is accepted (as a curator clicking "accept all" would), and the accepted queries are
   embedded by the catalog's embedding pipeline;
   at each step the catalog's ranking is calibrated as beat does once the catalog is quiet
   (routing/calibration.py: on the catalog's hypothetical queries and the traffic's confirmed
   queries), so the engine ranks as the route endpoint would then;
5. the measured half is routed before and after, as `manage.py evaluate` does (the live index,
   limit 20, `auto`), and recall@5 printed beside two baselines of the same run (rank-bm25 over
   name + description, and description-only cosine with all-MiniLM-L6-v2 as packaged) and an upper
   bound (every learning request added as a hypothetical query of its expected tools, no selection).

The service runs its default model, all-MiniLM-L6-v2 adapted to tool routing, except on the demo
catalog: the adapted model learned from the demo catalog's hypothetical queries, which are that
set's traffic, so it runs the packaged model (EMBEDDING_MODEL=all-MiniLM-L6-v2), which never saw them.
"""
from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.common import DEMO_CATALOG, TINY_DATA_DIR, Table, fmt, print_tables, save_results  # noqa: E402
from bench.throwaway import throwaway_services  # noqa: E402
from toolcatalog.local_model import MODEL_NAME  # noqa: E402

REPLAY_DB = "toolrouter_replay"
REPLAY_REDIS_DB = "7"
K = 5
COLUMNS = ["set", "measured", "learned from", "accepted", "rank-bm25", "description cosine", "engine before",
           "engine after", "Δ", "upper bound (all learning requests)", "learning half before → after"]
TINY_QUERIES = 40
TINY_DEMO_TOOLS = 12


@dataclass
class ReplaySet:
    name: str
    document: dict
    traffic: list[dict]  # {"query", "expected"}
    notes: list[str] = field(default_factory=list)
    model: str = ""  # EMBEDDING_MODEL for this set; "": the service's default


# -- data ---------------------------------------------------------------------------------------
def sets_under(path: Path, tiny: bool) -> list[ReplaySet]:
    """A set folder, a catalog file with hypothetical queries, or a folder of set folders (+ the demo catalog)."""
    if path.is_file():
        return [catalog_queries_set(path, tiny)]
    if (path / "catalog.json").exists():
        return folder_sets(path, tiny)
    folders = [p for p in sorted(path.iterdir()) if (p / "catalog.json").exists()]
    if not folders:
        raise SystemExit(f"no catalog.json under {path}")
    return [*(s for folder in folders for s in folder_sets(folder, tiny)), catalog_queries_set(DEMO_CATALOG, tiny)]


def folder_sets(path: Path, tiny: bool) -> list[ReplaySet]:
    """The set as it is, and (not with --tiny) its curated split."""
    curated = None if tiny else curated_set(path)
    return [folder_set(path, tiny), *([curated] if curated else [])]


def folder_set(path: Path, tiny: bool) -> ReplaySet:
    document = json.loads((path / "catalog.json").read_text())
    traffic = read_traffic(path)
    if tiny:
        traffic = traffic[:TINY_QUERIES]
    return ReplaySet(path.name, document, traffic)


def curated_set(path: Path) -> ReplaySet | None:
    """The set's curated split (bench/quality.py's): some requests are the catalog's hypothetical
    queries, the rest are the traffic; the issue's target names seal-dev's."""
    from bench.quality import curated_split

    split_off = curated_split(json.loads((path / "catalog.json").read_text()), read_traffic(path))
    if split_off is None:
        return None
    document, asked, note = split_off
    name = f"{path.name}, curated split"
    return ReplaySet(name, document, asked, [f"{name}: {note}; the asked requests are the traffic"])


def read_traffic(path: Path) -> list[dict]:
    traffic = [json.loads(line) for line in (path / "queries.jsonl").read_text().splitlines() if line.strip()]
    return [{"query": t["query"], "expected": list(t["expected"])} for t in traffic if t.get("expected")]


def catalog_queries_set(path: Path, tiny: bool) -> ReplaySet:
    """The catalog's own hypothetical queries become the traffic; the catalog starts without them."""
    document = json.loads(path.read_text())
    tools = document["tools"][:TINY_DEMO_TOOLS] if tiny else document["tools"]
    traffic = [{"query": q, "expected": [t["name"]]} for t in tools for q in t.get("hypothetical_queries") or []]
    stripped = {**document, "tools": [{**t, "hypothetical_queries": []} for t in tools]}
    name = "demo catalog" if path == DEMO_CATALOG else path.stem
    notes = [f"{name}: its {len(traffic)} hypothetical queries are the traffic; the catalog starts with descriptions only"]
    if path != DEMO_CATALOG:
        return ReplaySet(name, stripped, traffic, notes)
    return ReplaySet(name, stripped, traffic, [*notes, f"{name}: routed with {MODEL_NAME} as packaged (the default "
                                                       "model learned from these requests)"], MODEL_NAME)


def split(traffic: list[dict], how: str, seed: int) -> tuple[list[dict], list[dict]]:
    order = list(traffic)
    random.Random(seed).shuffle(order)
    if how == "random":
        half = len(order) // 2
        return order[:half], order[half:]
    learn: list[dict] = []
    measure: list[dict] = []
    seen: set[str] = set()
    for item in order:
        if all(name in seen for name in item["expected"]) and len(measure) < len(learn):
            measure.append(item)
        else:
            learn.append(item)
            seen.update(item["expected"])
    return learn, measure


# -- one set ------------------------------------------------------------------------------------
def reset_database() -> None:
    from django.core.management import call_command

    from routing.live_index import live_index

    call_command("flush", interactive=False, verbosity=0)
    live_index.clear()


def load_catalog(document: dict) -> None:
    from toolcatalog import services

    report = services.import_catalog(document)
    if report.rejected:
        print(f"  {len(report.rejected)} catalog entries rejected, e.g. {report.rejected[0]}")
    embed_pending()


def calibrate(label: str, notes: list[str]) -> None:
    """What beat does once the catalog is quiet and embedded: calibrate its ranking."""
    from routing import calibration

    row = calibration.calibrate_now()
    notes.append(f"{label}: {row.reason or ('calibrated' if row.calibrated else 'defaults kept')}"
                 f" ({row.evidence.get('used', 0)} queries)")


def embed_pending() -> None:
    """The catalog's embedding pipeline, in this process (as `manage.py reembed`)."""
    import io

    from django.core.management import call_command

    call_command("reembed", stdout=io.StringIO(), stderr=io.StringIO())


def ranked(queries: Iterable[str], limit: int = 20) -> list[list[str]]:
    """As `manage.py evaluate` routes: the engine and defaults of the route endpoint, limit 20."""
    from django.conf import settings

    from engine import RouteRequest, route
    from routing.live_index import live_index
    from routing.query_embeddings import query_embedder
    from toolcatalog.embeddings import get_provider

    provider = get_provider()
    index = live_index.current(provider.model_id)
    embed = query_embedder(provider).embed_many
    return [route(index, RouteRequest(query=q, limit=limit, strategy="auto", format="openai",
                                      default_category=settings.ROUTE_DEFAULT_CATEGORY),
                  embed_texts=embed).names for q in queries]


def recall(items: list[dict], rankings: list[list[str]]) -> float:
    from routing.evaluation import recall_at

    return sum(recall_at(r, i["expected"], K) for i, r in zip(items, rankings)) / max(len(items), 1)


def replay_learning_half(learn: list[dict]) -> int:
    """Route each request as the endpoint does, log it, and record what the proxy/feedback would."""
    from api.services import create_api_key
    from routing import services as routing
    from usage import services as usage

    key, _ = create_api_key("replay-agent", ["route"])
    caller = routing.Caller(api_key_id=key.pk, name=key.name)
    routed = []
    for item in learn:
        answer = routing.route_request(routing.RouteQuery(query=item["query"]), caller=caller).answer
        routed.append((answer["request_id"], [m["name"] for m in answer["matches"]], item["expected"]))
    usage.drain_everything()
    for request_id, offered, expected in routed:
        usage.record_feedback(request_id=request_id, api_key_id=key.pk, success=None,
                              used_tools=[n for n in expected if n in offered],
                              missing_tools=[n for n in expected if n not in offered])
    return len(routed)


def accept_everything_proposed() -> tuple[int, dict[str, int]]:
    from usage import suggestions
    from usage.models import Suggestion, SuggestionStatus

    report = suggestions.refresh_suggestions()
    if report.paused:
        raise SystemExit(report.paused)
    pending = list(Suggestion.objects.filter(status=SuggestionStatus.PENDING))
    kinds: dict[str, int] = {}
    for suggestion in pending:
        suggestions.accept(suggestion, via="replay")
        kinds[suggestion.kind] = kinds.get(suggestion.kind, 0) + 1
    embed_pending()
    return len(pending), kinds


def add_every_learning_request(learn: list[dict]) -> None:
    from toolcatalog import services
    from toolcatalog.models import HypotheticalQuery, QuerySource, Tool

    tools = {t.name: t for t in Tool.objects.all()}
    for item in learn:
        for name in item["expected"]:
            text = " ".join(item["query"].split())[:500]
            if name in tools and text and not HypotheticalQuery.objects.filter(tool=tools[name], text=text).exists():
                services.save_validated(HypotheticalQuery(tool=tools[name], text=text, source=QuerySource.TRAFFIC))
    embed_pending()


# -- baselines (as bench/quality.py) ------------------------------------------------------------
def baselines(document: dict, items: list[dict]) -> tuple[float, float]:
    from rank_bm25 import BM25Okapi

    from bench.quality import words
    from toolcatalog.embeddings import get_provider, seeds_filter_provider

    tools = [t for t in document["tools"] if t.get("enabled", True)]
    names = [t["name"] for t in tools]
    bm25 = BM25Okapi([words(f"{t['name']} {t.get('description') or ''}") for t in tools])
    provider = seeds_filter_provider(get_provider())
    matrix = provider.embed([t.get("description") or t["name"] for t in tools])
    queries = provider.embed([i["query"] for i in items]) if items else np.zeros((0, matrix.shape[1]))

    def top(scores: np.ndarray) -> list[str]:
        return [names[j] for j in np.argsort(-scores, kind="stable")[:K]]

    bm25_ranked = [top(np.asarray(bm25.get_scores(words(i["query"])))) for i in items]
    cosine_ranked = [top(matrix @ q) for q in queries]
    return recall(items, bm25_ranked), recall(items, cosine_ranked)


def run_set(data: ReplaySet, how: str, seed: int, table: Table) -> None:
    from django.conf import settings

    default_model = settings.EMBEDDING_MODEL
    settings.EMBEDDING_MODEL = data.model or default_model
    try:
        replay(data, how, seed, table)
    finally:
        settings.EMBEDDING_MODEL = default_model


def replay(data: ReplaySet, how: str, seed: int, table: Table) -> None:
    started = time.perf_counter()
    reset_database()
    load_catalog(data.document)
    calibrate(f"{data.name}, before", data.notes)
    learn, measure = split(data.traffic, how, seed)
    print(f"\n{data.name}: {len(data.document['tools'])} tools, {len(data.traffic)} requests: "
          f"{len(learn)} to learn from, {len(measure)} measured ({how} split, seed {seed})", flush=True)
    bm25, cosine = baselines(data.document, measure)
    before = recall(measure, ranked(i["query"] for i in measure))
    learn_before = recall(learn, ranked(i["query"] for i in learn))
    replay_learning_half(learn)
    accepted, kinds = accept_everything_proposed()
    calibrate(f"{data.name}, after", data.notes)
    after = recall(measure, ranked(i["query"] for i in measure))
    learn_after = recall(learn, ranked(i["query"] for i in learn))
    add_every_learning_request(learn)
    calibrate(f"{data.name}, upper bound", [])
    upper = recall(measure, ranked(i["query"] for i in measure))
    print(f"  accepted {accepted} suggestions ({', '.join(f'{k} {n}' for k, n in sorted(kinds.items()))}); "
          f"recall@5 on the measured half {before:.3f} -> {after:.3f} ({after - before:+.3f}); "
          f"{time.perf_counter() - started:.0f} s", flush=True)
    table.add(data.name, len(measure), len(learn), accepted, round(bm25, 4), round(cosine, 4), round(before, 4),
              round(after, 4), round(after - before, 4), round(upper, 4),
              f"{fmt(round(learn_before, 4))} → {fmt(round(learn_after, 4))}")
    table.notes += data.notes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-dir", type=Path, action="append",
                        help="a set folder, a catalog file, or a folder of sets (repeatable); "
                             "default ../shared/data, or bench/data/tiny with --tiny")
    parser.add_argument("--split", choices=("covered", "random"), default="covered")
    parser.add_argument("--seed", type=int, default=15)
    parser.add_argument("--tiny", action="store_true", help="CI mode: a few requests per set")
    args = parser.parse_args()
    paths = args.data_dir or [TINY_DATA_DIR if args.tiny else ROOT.parent / "shared" / "data"]
    table = Table(f"Learning from traffic: recall@{K} on the measured half, before and after accepting the "
                  "suggestions", COLUMNS)
    # The tiny run (the test suite's) never drops the database of a full run going on beside it.
    with throwaway_services(REPLAY_DB + ("_tiny" if args.tiny else ""), "6" if args.tiny else REPLAY_REDIS_DB):
        from django.conf import settings

        settings.USAGE_QUERY_STORAGE = "store"  # learning needs the text (the default)
        for data in (s for path in paths for s in sets_under(path.resolve(), args.tiny)):
            run_set(data, args.split, args.seed, table)
    table.notes.append(f"{args.split} split, seed {args.seed}; suggestion thresholds as configured: "
                       "see usage/suggestions.py")
    print_tables([table])
    save_results("replay_learning-tiny" if args.tiny else "replay_learning", [table])


if __name__ == "__main__":
    main()
