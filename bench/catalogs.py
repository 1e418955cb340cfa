"""Deterministic catalogs of 100 to 100,000 tools, made from bfcl-dev and the demo catalog.

The real tools (870 bfcl-dev + 96 enabled demo tools, less the few names in both) are put in a fixed pseudo-random order
(by a hash of the name), so even the 100-tool catalog mixes both sources. Past 963 tools, each further
round repeats them under a new name (`<name>_<round>`) with a phrase appended to the
description, as `bench/bench_embedding.py` does, so every text differs. Demo tools keep their
categories (the catalog always has the demo's 17 categories); only the first round keeps the
hypothetical queries.

Vectors: real all-MiniLM-L6-v2 embeddings of the very texts the worker would embed, cached
under `.data/cache/` (see `bench/embedder.py`), for up to `REAL_VECTOR_LIMIT` tools.
Beyond that (the 100,000-tool catalog) tool i reuses the real vector of tool
i mod REAL_VECTOR_LIMIT plus a small deterministic jitter: embedding 100k texts takes
~30 min on this machine, and the speed of a dot product does not depend on the values.
"""
from __future__ import annotations

import hashlib
import json
import time
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from bench.common import DEMO_CATALOG, bfcl_dir
from engine import CatalogSnapshot, CategoryEntry, ToolEntry, category_embedding_text, tool_embedding_text

REAL_VECTOR_LIMIT = 10_000
VARIANTS = ["for teams", "in bulk", "with history", "for admins", "on mobile", "asynchronously",
            "from archives", "for partners", "with audit", "in sandbox", "for reports", "by region"]
SIZES = (100, 1_000, 10_000, 100_000)


@lru_cache(maxsize=1)
def _sources() -> tuple[list[dict], list[dict], list[dict]]:
    """(bfcl tools, demo tools, demo categories) as toolcatalog/v1 dicts."""
    bfcl = json.loads((bfcl_dir() / "catalog.json").read_text())
    demo = json.loads(DEMO_CATALOG.read_text())
    return bfcl["tools"], demo["tools"], demo["categories"]


def _stable_key(name: str) -> str:
    return hashlib.sha1(name.encode()).hexdigest()


@lru_cache(maxsize=1)
def base_tools() -> tuple[dict, ...]:
    bfcl, demo, _ = _sources()
    by_name = {t["name"]: {**t, "category": None, "hypothetical_queries": []} for t in bfcl}
    by_name.update({t["name"]: dict(t) for t in demo if t.get("enabled", True)})  # a few names are in both
    return tuple(sorted(by_name.values(), key=lambda t: _stable_key(t["name"])))


def generate(count: int) -> dict[str, Any]:
    """A toolcatalog/v1 document of `count` enabled tools (deterministic)."""
    base = base_tools()
    present = {b["name"] for b in base[:count]}
    tools = []
    for i in range(count):
        source = base[i % len(base)]
        round_ = i // len(base)
        if round_ == 0:
            tools.append({**source, "related_tools": [r for r in source.get("related_tools", []) if r in present]})
            continue
        suffix = VARIANTS[(round_ - 1) % len(VARIANTS)] + (f" v{round_}" if round_ > len(VARIANTS) else "")
        tools.append({**source, "name": f"{source['name']}_{round_}",
                      "description": f"{source['description']} {suffix}",
                      "hypothetical_queries": [], "related_tools": [], "core": False})
    _, _, categories = _sources()
    return {"format": "toolcatalog/v1", "categories": categories, "tools": tools}


def speed_queries(count: int) -> list[str]:
    """Real user requests (bfcl-dev) interleaved with demo hypothetical queries: 4 to 1."""
    bfcl = [json.loads(line)["query"] for line in (bfcl_dir() / "queries.jsonl").read_text().splitlines() if line]
    _, demo, _ = _sources()
    hypothetical = [q for t in demo for q in t.get("hypothetical_queries", [])]
    out: list[str] = []
    b = h = 0
    while len(out) < count:
        if len(out) % 5 == 4 and h < len(hypothetical):
            out.append(hypothetical[h])
            h += 1
        else:
            out.append(bfcl[b % len(bfcl)])
            b += 1
    return out


def tool_entry(t: dict) -> ToolEntry:
    return ToolEntry(
        name=t["name"], description=t.get("description") or "", category=t.get("category"),
        parameters=t.get("parameters") or {}, usage_hint=t.get("usage_hint") or "",
        related_tools=tuple(t.get("related_tools") or ()), core=bool(t.get("core", False)),
        hypothetical_queries=tuple(t.get("hypothetical_queries") or ()),
    )


def tool_text(t: dict) -> str:
    return tool_embedding_text(t["name"], t.get("description") or "", t.get("category"), t.get("parameters"))


@dataclass
class Vectors:
    tools: np.ndarray  # (n, dim), row i belongs to document["tools"][i]
    queries: dict[str, np.ndarray]  # tool name -> (q, dim), in hypothetical_queries order
    categories: dict[str, np.ndarray]
    seconds: float  # spent embedding texts not in the cache, this run
    embedded: int  # how many texts that was
    real: int  # tool rows that are real embeddings (the rest: jittered copies)


def vectors_for(document: dict[str, Any], embedder) -> Vectors:
    """Vectors for every tool, hypothetical query and category of `document` (see the module doc)."""
    tools = document["tools"]
    real = min(len(tools), REAL_VECTOR_LIMIT)
    texts = [tool_text(t) for t in tools[:real]]
    query_texts = [q for t in tools[:real] for q in t.get("hypothetical_queries", [])]
    category_texts = [category_embedding_text(c["name"], c.get("description", ""), c.get("keywords", []))
                      for c in document["categories"]]
    before = len(embedder.cache)
    started = time.perf_counter()
    matrix = embedder.encode(texts + query_texts + category_texts)
    seconds = time.perf_counter() - started
    embedded = len(embedder.cache) - before
    tool_matrix = matrix[:real]
    offset = real
    queries: dict[str, np.ndarray] = {}
    for t in tools[:real]:
        n = len(t.get("hypothetical_queries", []))
        if n:
            queries[t["name"]] = matrix[offset:offset + n]
        offset += n
    categories = {c["name"]: matrix[offset + i] for i, c in enumerate(document["categories"])}
    if len(tools) > real:
        tool_matrix = np.vstack([tool_matrix, _jittered(tool_matrix, len(tools) - real)])
    return Vectors(tool_matrix.astype(np.float32), queries, categories, seconds if embedded else 0.0, embedded, real)


def _jittered(real: np.ndarray, count: int, sigma: float = 0.02) -> np.ndarray:
    rng = np.random.default_rng(0)
    out = np.empty((count, real.shape[1]), dtype=np.float32)
    for start in range(0, count, 10_000):
        stop = min(count, start + 10_000)
        rows = real[np.arange(start, stop) % len(real)] + rng.normal(0, sigma, (stop - start, real.shape[1]))
        out[start:stop] = rows / np.linalg.norm(rows, axis=1, keepdims=True)
    return out


def snapshot(document: dict[str, Any], vectors: Vectors, model_id: str = "bench") -> CatalogSnapshot:
    tools = tuple(tool_entry(t) for t in document["tools"])
    categories = tuple(
        CategoryEntry(name=c["name"], description=c.get("description") or "", keywords=tuple(c.get("keywords") or ()),
                      workflow_hint=c.get("workflow_hint") or "", parent=c.get("parent"))
        for c in document["categories"]
    )
    return CatalogSnapshot(
        version="bench", tools=tools, categories=categories,
        tool_vectors={t.name: vectors.tools[i] for i, t in enumerate(tools)},
        query_vectors=vectors.queries, category_vectors=vectors.categories, model=model_id,
    )
