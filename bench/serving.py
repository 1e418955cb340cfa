"""Served catalogs of 100 to 100,000 tools: snapshot load, HTTP latency, web-process memory.

    .venv/bin/python -m toolrouter.devservices -- .venv/bin/python bench/serving.py [--sizes 1000,10000] [--tiny]

For each size, on a throw-away database (`toolrouter_bench_serving`, Redis db 12):
1. the rows go in directly (`bench/server.py`), with real MiniLM vectors up to 10,000 tools and
   jittered copies beyond (`bench/catalogs.py`);
2. in this process: `routing.selectors.load_snapshot` and the index build are timed, then
   repeated under tracemalloc to split the memory between the snapshot and the index;
3. gunicorn with two sync workers and production settings serves it; after warm-up, one client
   sends requests back to back (auto, then hybrid; unique queries, so every semantic request
   embeds its query fresh), and each worker's memory is read: RSS as `ps` shows it, USS
   (private) and PSS (private + its share of pages shared with the other worker);
4. what serving adds to the engine, per path: the queries that took the auto fast path are sent
   again (at least 200 requests), and `hybrid` on a new wording of every query (embedded fresh on
   both sides), each also routed in this process on an index of the same snapshot. What serving
   adds (target: at most 3 ms) is, per request, the client's time less the engine's time in the
   worker that answered (the answer's Server-Timing), then its p50; the service's own time in the
   same header says how much of it is spent inside the route service. HTTP p50 minus this
   process's engine p50 is shown beside it. `--profile` runs py-spy on each worker during those
   phases.
"""
from __future__ import annotations

import argparse
import gc
import signal
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a script from anywhere

from bench import catalogs  # noqa: E402
from bench.common import (  # noqa: E402
    RESULTS_DIR,
    Latency,
    Table,
    add_data_dir_argument,
    print_tables,
    save_results,
    use_data_dir,
)
from bench.embedder import Embedder  # noqa: E402
from bench.server import Gunicorn, api_key, load_catalog, post, warm  # noqa: E402
from bench.throwaway import throwaway_services  # noqa: E402

HTTP_REQUESTS = 100
FAST_PATH_REQUESTS = 200
OVERHEAD_TARGET_MS = 3.0
FILTER_TOOLS = 50
FILTER_REQUESTS = 100
FILTER_TARGET = 25.0
MODEL_PROBE = """
import os, sys
os.environ.setdefault("HF_HUB_OFFLINE", "1")
def rss():
    return int(next(l for l in open("/proc/self/status") if l.startswith("VmRSS")).split()[1]) / 1024
base = rss()
import onnxruntime, tokenizers
after_runtime = rss()
from toolcatalog.embeddings import LocalProvider
p = LocalProvider(threads=1); p.embed_queries(["warm up the model once"])
print(p.query_variant, base, after_runtime, rss(), int("torch" in sys.modules))
"""


def truncate_catalog() -> None:
    from django.db import connection

    from toolcatalog.models import Category, HypotheticalQuery, Tool

    tables = [Tool.related_tools.through._meta.db_table, HypotheticalQuery._meta.db_table, Tool._meta.db_table,
              Category._meta.db_table]
    with connection.cursor() as cursor:
        cursor.execute(f"TRUNCATE {', '.join(tables)} RESTART IDENTITY CASCADE")


def snapshot_timings(model_id: str) -> dict:
    """Load + build as a web worker does on its first request, then the same under tracemalloc."""
    from engine import RoutingIndex
    from routing import selectors

    started = time.perf_counter()
    snapshot = selectors.load_snapshot(model_id)
    load_s = time.perf_counter() - started
    started = time.perf_counter()
    index = RoutingIndex(snapshot)
    build_s = time.perf_counter() - started
    del snapshot, index
    gc.collect()
    tracemalloc.start()
    snapshot = selectors.load_snapshot(model_id)
    gc.collect()
    snapshot_mb = tracemalloc.get_traced_memory()[0] / 2**20
    tracemalloc.reset_peak()
    index = RoutingIndex(snapshot)
    del snapshot
    gc.collect()
    index_mb, peak = tracemalloc.get_traced_memory()
    top = tracemalloc.take_snapshot().statistics("filename")[:4]
    tracemalloc.stop()
    vectors = index.vectors
    scoring_copy = vectors.scoring_rows.nbytes if vectors.scoring_rows is not vectors.tool_matrix else 0
    matrix_mb = (vectors.tool_matrix.nbytes + vectors.tool_scale.nbytes + scoring_copy) / 2**20
    del index, vectors
    gc.collect()
    return {"load_s": load_s, "build_s": build_s, "snapshot_mb": snapshot_mb, "index_mb": index_mb / 2**20,
            "peak_mb": peak / 2**20, "matrix_mb": matrix_mb,
            "top": [f"{Path(s.traceback[0].filename).name}: {s.size / 2**20:.0f} MB" for s in top]}


def http_latencies(server: Gunicorn, key: str, queries: list[str]) -> dict[str, Latency]:
    out = {"auto": Latency(), "auto fast path": Latency(), "auto semantic path": Latency(), "hybrid": Latency()}
    errors = 0
    for q in queries:
        answer = post(server.url("/api/v1/route"), key, {"query": q, "strategy": "auto"})
        errors += answer.status != 200
        if answer.status == 200:
            out["auto"].samples.append(answer.ms)
            path = "auto fast path" if answer.body["strategy"]["used"] == "bm25" else "auto semantic path"
            out[path].samples.append(answer.ms)
    for q in queries:
        # a new wording, so the server's query-embedding cache does not answer for it
        answer = post(server.url("/api/v1/route"), key, {"query": f"please: {q}", "strategy": "hybrid"})
        errors += answer.status != 200
        if answer.status == 200:
            out["hybrid"].samples.append(answer.ms)
    if errors:
        raise RuntimeError(f"{errors} HTTP requests failed")
    return out


FAST_PATH_ROW = "auto fast path, again"
SEMANTIC_ROW = "hybrid, fresh query embedding, again"


def serving_overhead(server: Gunicorn, key: str, model_id: str, queries: list[str],
                     profile_name: str | None) -> dict[str, dict[str, Latency]]:
    """What serving adds to the engine on each path: the same requests over HTTP and straight into
    `route()` in this process, on an index of the same snapshot.

    - fast path: the queries `auto` answers with BM25 alone, sent again (at least FAST_PATH_REQUESTS);
    - semantic path: `hybrid` on a new wording of each query, so that the server's query-embedding
      cache cannot answer and both sides embed it fresh with the workers' query model (ONNX, one thread).
    """
    from engine import RouteRequest, RoutingIndex, route
    from routing import selectors
    from toolcatalog.embeddings import LocalProvider

    index = RoutingIndex(selectors.load_snapshot(model_id))
    provider = LocalProvider(threads=1)  # EMBEDDING_THREADS=1, as bench/server.py runs the workers
    provider.embed_queries(["warm up the model once"])

    def fast_path(q: str) -> bool:
        strategy = route(index, RouteRequest(query=q, strategy="auto"), embed_texts=provider.embed_queries).strategy
        return strategy.used == "bm25" and not strategy.fallback

    fast = [q for q in queries if fast_path(q)]
    sent: dict[str, tuple[list[str], str]] = {}
    if fast:  # a catalog without a calibrated gate has no fast path (see bench/load.py)
        sent[FAST_PATH_ROW] = ([fast[i % len(fast)] for i in range(max(FAST_PATH_REQUESTS, len(fast)))], "auto")
    sent[SEMANTIC_ROW] = ([f"once more: {q}" for q in queries], "hybrid")
    out: dict[str, dict[str, Latency]] = {}
    for row, (texts, strategy) in sent.items():
        engine = Latency()
        for q in texts:
            started = time.perf_counter()
            route(index, RouteRequest(query=q, strategy=strategy), embed_texts=provider.embed_queries)
            engine.samples.append((time.perf_counter() - started) * 1000)
        profilers = [start_profiler(pid, f"{profile_name}-{row.split(',')[0].replace(' ', '-')}-{pid}")
                     for pid in server.worker_pids()] if profile_name else []
        http, added, inside = Latency(), Latency(), Latency()
        for q in texts:
            answer = post(server.url("/api/v1/route"), key, {"query": q, "strategy": strategy})
            if answer.status != 200 or (row == FAST_PATH_ROW and (answer.body["strategy"]["used"] != "bm25"
                                                                 or answer.body["strategy"]["fallback"])):
                raise RuntimeError(f"{row}: query {q!r} answered {answer.status} {answer.body}")
            http.samples.append(answer.ms)
            worker_engine = answer.server_timing("engine")
            if worker_engine is None:
                raise RuntimeError(f"{row}: no engine time in the answer's Server-Timing header {answer.headers}")
            added.samples.append(answer.ms - worker_engine)  # this request, the engine's time in its own worker
            inside.samples.append(answer.body["latency_ms"] - worker_engine)  # the route service's own clock
        for process, path in profilers:
            process.send_signal(signal.SIGINT)  # py-spy writes what it sampled so far
            process.wait(timeout=60)
            print(f"py-spy of a worker: {path}", flush=True)
        out[row] = {"http": http, "engine": engine, "added": added, "inside": inside}
    return out


def filter_against_seeds(server: Gunicorn, key: str, document: dict, queries: list[str], tiny: bool) -> dict:
    """POST /api/v1/filter with the same 50 known tools (their vectors cached after the first
    request, as for a client that always sends its tool list) against the seeds' per-request
    filter, which embeds the query and all 50 descriptions on every request (sentence-transformers
    on torch, in this process)."""
    import json as _json

    from bench.common import seeds_encoder
    from bench.speed import seeds_filter

    tools = document["tools"][:FILTER_TOOLS]
    definitions = [{"type": "function", "function": {"name": t["name"], "description": t.get("description") or "",
                                                     "parameters": t.get("parameters") or {"type": "object"}}}
                   for t in tools]
    sent = queries[: 10 if tiny else FILTER_REQUESTS]

    def body(q: str) -> dict:
        return {"model": "gpt-4o", "messages": [{"role": "user", "content": q}], "tools": definitions}

    first = post(server.url("/api/v1/filter"), key, body(sent[0]))  # embeds the 50 tools once
    if first.status != 200:
        raise RuntimeError(f"filter answered {first.status}: {_json.dumps(first.body)[:300]}")
    http = Latency()
    for q in sent:
        answer = post(server.url("/api/v1/filter"), key, body(q))
        if answer.status != 200:
            raise RuntimeError(f"filter answered {answer.status}")
        http.samples.append(answer.ms)
    encode = seeds_encoder()
    descriptions = [t.get("description") or t["name"] for t in tools]
    seeds = Latency()
    for q in sent[: 10 if tiny else 40]:
        started = time.perf_counter()
        seeds_filter(encode, descriptions, q)
        seeds.samples.append((time.perf_counter() - started) * 1000)
    return {"http": http, "seeds": seeds}


def start_profiler(pid: int, name: str) -> tuple[subprocess.Popen, Path]:
    """py-spy on one web worker until interrupted: raw collapsed stacks, dense enough for a 1 ms request."""
    out = RESULTS_DIR / f"{name}.txt"
    process = subprocess.Popen([str(Path(sys.executable).with_name("py-spy")), "record", "--pid", str(pid),
                                "--rate", "500", "--format", "raw", "--output", str(out), "--nonblocking"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(1)  # attached before the first request
    return process, out


def model_memory() -> tuple[str, tuple[float, float, float, bool]]:
    """The query model's variant (int8 or fp32, as EMBEDDING_LOCAL_QUERY_PRECISION picks it here),
    and (interpreter, + ONNX Runtime, + the query model loaded and run once) RSS in MB in a fresh
    process, and whether torch got imported."""
    from bench.common import ROOT

    out = subprocess.run([sys.executable, "-c", MODEL_PROBE], cwd=ROOT, capture_output=True, text=True, check=True)
    variant, base, runtime_mb, model_mb, torch = out.stdout.split()[-5:]
    return variant, (float(base), float(runtime_mb), float(model_mb), torch == "1")


def measure(n: int, emb: Embedder, tiny: bool, profile: bool, filter_size: int) -> dict:
    from shared.redis_client import get_redis
    from toolcatalog.embeddings import get_provider

    model_id = get_provider().model_id
    truncate_catalog()
    # Every size sends the same queries: without this, the previous size's cached query
    # embeddings would answer for the semantic requests, which are meant to embed afresh.
    get_redis().flushdb()
    document = catalogs.generate(n)
    vectors = catalogs.vectors_for(document, emb)
    insert_s = load_catalog(document, vectors, model_id)
    del vectors
    gc.collect()
    print(f"{n} tools inserted in {insert_s:.1f} s", flush=True)
    timings = snapshot_timings(model_id)
    queries = catalogs.speed_queries(HTTP_REQUESTS + 40)
    key = api_key()
    with Gunicorn(workers=2, log_name=f"serving-{n}") as server:
        warm_s = warm(server, key, queries[HTTP_REQUESTS:])
        latencies = http_latencies(server, key, queries[: 10 if tiny else HTTP_REQUESTS])
        memory = server.memory()
        overhead = serving_overhead(server, key, model_id, queries[: 10 if tiny else HTTP_REQUESTS],
                                    f"profile-serving-{n}" if profile else None)
        filtered = filter_against_seeds(server, key, document, queries, tiny) if n == filter_size else None
    return {"n": n, "insert_s": insert_s, "warm_s": warm_s, **timings, "http": latencies, "memory": memory,
            "overhead": overhead, "filter": filtered}


MEMORY_TARGETS = {1_000: 300, 100_000: 600}  # MB of RSS per web worker, model included


def tables(results: list[dict], variant: str, model: tuple[float, float, float, bool]) -> list[Table]:
    http = Table("Speed over HTTP: one client, back to back (gunicorn, 2 sync workers, production settings)",
                 ["tools", "request", "requests", "p50 ms", "p95 ms", "queries/s", "engine p50 ms",
                  "p50 - engine p50 ms", "added by serving p50 ms"])
    memory = Table("Web process memory with the catalog loaded (after warm-up: index built, model loaded)",
                   ["tools", "worker RSS MB (each)", "worker USS MB (each)", "worker PSS MB (each)",
                    "target (RSS)"])
    load = Table("Snapshot load from PostgreSQL and index build (in one process, as a worker's first request)",
                 ["tools", "rows inserted in s", "load_snapshot s", "index build s", "worker warm-up s",
                  "snapshot objects MB", "index MB (tool matrix MB)", "peak while building MB"])
    for r in results:
        for name, lat in r["http"].items():
            http.add(r["n"], name, len(lat.samples), lat.p50 if lat.samples else None,
                     lat.p95 if lat.samples else None, lat.qps if lat.samples else None, None, None, None)
        for row, measured in r["overhead"].items():
            lat, engine = measured["http"], measured["engine"]
            apart = lat.p50 - engine.p50
            added = measured["added"].p50
            http.add(r["n"], row, len(lat.samples), lat.p50, lat.p95, lat.qps, engine.p50, apart, added)
            http.notes.append(f"{r['n']:,} tools, {row.split(',')[0]}: serving adds {added:.2f} ms p50 to the "
                              f"engine's time in the same request (target <= {OVERHEAD_TARGET_MS:g} ms: "
                              f"{'met' if added <= OVERHEAD_TARGET_MS else 'missed'}); "
                              f"{measured['inside'].p50:.2f} ms p50 of it inside the route service (index check, key "
                              "scope, query-vector cache, answer), the rest in HTTP, Django and DRF. The p50s taken "
                              f"apart, over HTTP and in this process, differ by {apart:.2f} ms.")
        rss = [m["rss"] for m in r["memory"]]
        target = MEMORY_TARGETS.get(r["n"])
        memory.add(r["n"], " / ".join(f"{m['rss']:.0f}" for m in r["memory"]),
                   " / ".join(f"{m['uss']:.0f}" for m in r["memory"]),
                   " / ".join(f"{m['pss']:.0f}" for m in r["memory"]),
                   (f"<= {target} MB: " + ("met" if rss and max(rss) <= target else "missed")) if target else "–")
        load.add(r["n"], r["insert_s"], r["load_s"], r["build_s"], r["warm_s"], r["snapshot_mb"],
                 f"{r['index_mb']:.0f} ({r['matrix_mb']:.0f})", r["peak_mb"])
    http.notes.append(f"'{FAST_PATH_ROW}': the requests that took the fast path, sent again (at least "
                      f"{FAST_PATH_REQUESTS}); '{SEMANTIC_ROW}': `hybrid` on a new wording of each query, so the "
                      "server embeds every one fresh, as the engine does here with the workers' query model (ONNX, "
                      "one thread). 'engine p50' is `route()` for the same requests in the benchmark process, on an "
                      "index of the same snapshot. 'added by serving' is, per request, the client's time less the "
                      "engine's time in the worker that answered (its Server-Timing header: ranking and query "
                      "model, not the query-vector cache), then its p50: the model's run-to-run spread between two "
                      "processes stays out of it. The client opens a new connection per request (urllib), as the "
                      "figures above.")
    base, runtime_mb, model_mb, torch = model
    memory.notes += [
        f"Fixed cost of the query embedder, in a bare process: interpreter {base:.0f} MB, + ONNX Runtime and "
        f"tokenizers {runtime_mb - base:.0f} MB, + the {variant} MiniLM loaded and run {model_mb - runtime_mb:.0f} MB "
        f"(RSS); torch {'WAS' if torch else 'was not'} imported.",
        "RSS counts shared library pages (numpy, ONNX Runtime) in full in each worker; PSS splits them between the "
        "two workers; USS is what a worker alone holds.",
    ]
    filtered = [r for r in results if r.get("filter")]
    if filtered:
        f, n = filtered[0]["filter"], filtered[0]["n"]
        gateway = Table(f"Filter gateway against the seeds' per-request filter, {FILTER_TOOLS} known tools",
                        ["contender", "requests", "p50 ms", "p95 ms", "seeds p50 / this p50", f"target >= {FILTER_TARGET:g}x"])
        times = f["seeds"].p50 / f["http"].p50
        gateway.add("seeds' filter: embeds the query and the 50 descriptions per request (torch, in process)",
                    len(f["seeds"].samples), f["seeds"].p50, f["seeds"].p95, 1.0, "–")
        gateway.add("POST /api/v1/filter over HTTP (gunicorn, the tools' vectors cached)", len(f["http"].samples),
                    f["http"].p50, f["http"].p95, times, "met" if times >= FILTER_TARGET else "missed")
        gateway.notes.append(f"The first {FILTER_TOOLS} tools of the {n:,}-tool catalog as an OpenAI chat request's "
                             "`tools`, one user message per request (the speed queries); the first request embeds the "
                             "tools once, as for a client that sends the same tool list every time.")
        out_tables = [http, memory, load, gateway]
    else:
        out_tables = [http, memory, load]
    load.notes.append("Snapshot and index sizes are Python allocations traced by tracemalloc (numpy buffers "
                      "included); tracemalloc's top files for the index: "
                      + "; ".join(f"{r['n']}: " + ", ".join(r["top"]) for r in results))
    return out_tables


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="100,1000,10000")
    parser.add_argument("--tiny", action="store_true", help="CI mode: 100 tools, a few requests")
    parser.add_argument("--profile", action="store_true",
                        help="py-spy each web worker during the fast-path phase (raw stacks in the results folder)")
    add_data_dir_argument(parser)
    args = parser.parse_args()
    use_data_dir(args)
    sizes = [100] if args.tiny else [int(s) for s in args.sizes.split(",")]
    emb = Embedder()
    results = []
    # The tiny (CI) run has its own database, so a test run never collides with a `make bench`.
    database, redis_db = ("toolrouter_bench_serving_tiny", "9") if args.tiny else ("toolrouter_bench_serving", "12")
    with throwaway_services(database, redis_db=redis_db):
        for n in sizes:
            results.append(measure(n, emb, args.tiny, args.profile, filter_size=min(sizes, key=lambda s: abs(s - 1000))))
            gc.collect()
    variant, model = model_memory()
    out = tables(results, variant, model)
    print_tables(out)
    per_size = {r["n"]: {k: r[k] for k in ("snapshot_mb", "index_mb", "matrix_mb", "peak_mb", "load_s", "build_s")}
                | {"rss": [m["rss"] for m in r["memory"]], "uss": [m["uss"] for m in r["memory"]]} for r in results}
    save_results("serving-tiny" if args.tiny else "serving", out,
                 {"sizes": sizes, "model_probe_mb": model, "query_model": variant, "per_size": per_size})


if __name__ == "__main__":
    main()
