"""A served catalog for the HTTP, memory and load benchmarks: throw-away database, gunicorn.

    with throwaway_services("toolrouter_bench_http", redis_db="12"):
        load_catalog(catalogs.generate(1000), vectors)      # rows straight into PostgreSQL
        with Gunicorn(workers=2) as server:                  # production settings, two workers
            server.post("/api/v1/route", {...})

Rows go in with `bulk_create` (no signals: `import_catalog` costs ~9 ms per tool), with the
vectors of `bench/catalogs.py` already marked `ready` and their real text hashes, so a worker
finds nothing to re-embed. The schema has no vector indexes (toolcatalog migration 0006): routing
never used them (the engine keeps its own matrix) and they made a 100k-row load take many minutes.
"""
from __future__ import annotations

import json
import os
import secrets
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.common import RESULTS_DIR, ROOT, children_of, rss_mb, uss_pss_mb

BATCH = 2_000


def load_catalog(document: dict[str, Any], vectors, model_id: str) -> float:
    """Insert `document` with its vectors; returns the seconds it took. Django must be set up."""
    from django.db import transaction

    from engine import category_embedding_text, text_hash
    from toolcatalog import services
    from toolcatalog.models import Category, EmbeddingStatus, HypotheticalQuery, Tool

    started = time.perf_counter()
    ready = {"embedding_model": model_id, "embedding_status": EmbeddingStatus.READY}
    with transaction.atomic():
        categories = {}
        for c in document["categories"]:
            text = category_embedding_text(c["name"], c.get("description", ""), c.get("keywords", []))
            vector = vectors.categories.get(c["name"])
            categories[c["name"]] = Category.objects.create(
                name=c["name"], description=c.get("description", ""), keywords=c.get("keywords", []),
                workflow_hint=c.get("workflow_hint", ""), embedding=vector, embedding_text_hash=text_hash(text),
                embedding_dimensions=len(vector) if vector is not None else None, **ready)
        for c in document["categories"]:
            if c.get("parent"):
                Category.objects.filter(pk=categories[c["name"]].pk).update(parent=categories[c["parent"]])
    from bench.catalogs import tool_text

    tools = document["tools"]
    for start in range(0, len(tools), BATCH):
        rows = []
        for i in range(start, min(len(tools), start + BATCH)):
            t = tools[i]
            category = categories.get(t.get("category")) if t.get("category") else None
            rows.append(Tool(
                name=t["name"], description=t["description"], category=category,
                parameters=t.get("parameters") or {}, usage_hint=t.get("usage_hint", ""), core=t.get("core", False),
                enabled=True, embedding=vectors.tools[i], embedding_dimensions=vectors.tools.shape[1],
                embedding_text_hash=text_hash(tool_text(t)), **ready))
        Tool.objects.bulk_create(rows)
    ids = dict(Tool.objects.values_list("name", "pk"))
    queries = [HypotheticalQuery(tool_id=ids[name], text=text, embedding=vectors.queries[name][j],
                                 embedding_dimensions=vectors.tools.shape[1], embedding_text_hash=text_hash(text),
                                 **ready)
               for name in vectors.queries for j, text in enumerate(_queries_of(tools, name))]
    HypotheticalQuery.objects.bulk_create(queries, batch_size=BATCH)
    through = Tool.related_tools.through
    links = [through(from_tool_id=ids[t["name"]], to_tool_id=ids[r])
             for t in tools for r in t.get("related_tools", []) if r in ids]
    through.objects.bulk_create(links, batch_size=BATCH)
    services.bump_catalog_version()
    return time.perf_counter() - started


def _queries_of(tools: list[dict], name: str) -> list[str]:
    for t in tools:
        if t["name"] == name:
            return t.get("hypothetical_queries", [])
    return []


def production_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    """The environment of a production web process, on the throw-away services."""
    return {
        **os.environ,
        "DJANGO_DEBUG": "0",
        "DJANGO_SECRET_KEY": secrets.token_urlsafe(48),
        "DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost",
        "DJANGO_SSL_REDIRECT": "0",
        # Throttling stays on (one Redis round trip per request, as in production) with a rate
        # no benchmark reaches: the load test measures the server, not the limiter.
        "API_RATE_PER_MINUTE": "100000000",
        # The first query embedding loads MiniLM (seconds) and times out; the breaker then opens.
        # A short cool-down gets the benchmark past that cold start sooner; nothing else changes.
        "ROUTE_EMBEDDING_COOLDOWN_SECONDS": "3",
        "HF_HUB_OFFLINE": "1",
        "TOKENIZERS_PARALLELISM": "false",
        "EMBEDDING_THREADS": "1",  # as docker-compose sets it for web workers
        **(extra or {}),
    }


@dataclass
class Answer:
    status: int  # 0: no HTTP answer (refused, reset, timed out)
    body: dict | None
    ms: float
    headers: dict[str, str] = field(default_factory=dict)

    def server_timing(self, metric: str) -> float | None:
        """A metric's duration (ms) from the answer's Server-Timing header, None where absent."""
        for part in self.headers.get("Server-Timing", "").split(","):
            name, _, duration = part.strip().partition(";dur=")
            if name == metric and duration:
                return float(duration)
        return None


def post(url: str, key: str, body: dict, timeout: float = 60.0) -> Answer:
    request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json", "Authorization": f"Bearer {key}"})
    started = time.perf_counter()
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            data = response.read()
            status = response.status
            headers = dict(response.headers.items())
    except urllib.error.HTTPError as error:
        data, status, headers = error.read(), error.code, dict(error.headers.items())
    except (urllib.error.URLError, OSError):
        return Answer(0, None, (time.perf_counter() - started) * 1000)
    ms = (time.perf_counter() - started) * 1000
    try:
        return Answer(status, json.loads(data), ms, headers)
    except ValueError:
        return Answer(status, None, ms, headers)


class Gunicorn:
    """`gunicorn toolrouter.wsgi` as docker-compose runs it (sync workers), on a free port."""

    def __init__(self, workers: int = 2, timeout: int = 300, log_name: str = "gunicorn",
                 env: dict[str, str] | None = None) -> None:
        from toolrouter.devservices import free_port

        self.env = env or {}  # on top of production_env() (e.g. DJANGO_DEBUG=1)
        self.port = free_port()
        self.workers = workers
        self.timeout = timeout
        self.log_path = RESULTS_DIR / f"{log_name}.log"
        self.process: subprocess.Popen | None = None

    def __enter__(self) -> Gunicorn:
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        # --timeout: a worker building a 100,000-tool index on its first request needs more
        # than docker-compose's 30 s on this machine (see BENCHMARKS.md, memory section).
        self.process = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "toolrouter.wsgi:application", "--bind", f"127.0.0.1:{self.port}",
             "--workers", str(self.workers), "--timeout", str(self.timeout), "--graceful-timeout", "20",
             "--backlog", "2048"],
            cwd=ROOT, env=production_env(self.env), stdout=open(self.log_path, "ab"), stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(self.url("/healthz"), timeout=2) as response:
                    if response.status == 200 and len(children_of(self.process.pid)) >= self.workers:
                        return self
            except (urllib.error.URLError, OSError):
                pass
            if self.process.poll() is not None:
                break
            time.sleep(0.3)
        self.stop()
        raise RuntimeError(f"gunicorn did not come up; see {self.log_path}")

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def worker_pids(self) -> list[int]:
        return children_of(self.process.pid) if self.process else []

    def memory(self) -> list[dict[str, float]]:
        """Per worker: RSS, private (USS) and proportional (PSS) memory in MB."""
        out = []
        for pid in self.worker_pids():
            uss, pss = uss_pss_mb(pid)
            out.append({"pid": pid, "rss": rss_mb(pid), "uss": uss, "pss": pss})
        return out

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=40)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def api_key() -> str:
    from api.services import create_api_key

    _, raw = create_api_key(f"bench-{secrets.token_hex(4)}", ["route", "catalog"])  # names are unique
    return raw


def warm(server: Gunicorn, key: str, queries: list[str], timeout: float = 600.0) -> float:
    """Until both workers have built their index and loaded the model: returns seconds taken.

    Two clients at once, so each sync worker gets one; a worker has warmed once a hybrid request
    (index + query embedding) comes back fast."""
    from concurrent.futures import ThreadPoolExecutor

    started = time.perf_counter()
    fast_in_a_row = 0
    i = 0
    with ThreadPoolExecutor(max_workers=server.workers) as pool:
        while time.perf_counter() - started < timeout:
            batch = [queries[(i + j) % len(queries)] for j in range(server.workers)]
            i += server.workers
            answers = list(pool.map(lambda q: post(server.url("/api/v1/route"), key,
                                                    {"query": q, "strategy": "hybrid"}, timeout=timeout), batch))
            if any(a.status != 200 for a in answers):
                bad = next(a for a in answers if a.status != 200)
                raise RuntimeError(f"warm-up request failed: {bad.status} {bad.body}")
            embedded = all(not a.body["strategy"]["fallback"] for a in answers)  # model loaded, breaker closed
            fast_in_a_row = fast_in_a_row + 1 if embedded and max(a.ms for a in answers) < 500 else 0
            if fast_in_a_row >= 5:
                return time.perf_counter() - started
    raise RuntimeError("the web workers did not warm up")


def dump(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=1))
