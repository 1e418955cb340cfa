"""Embedding throughput: N tools embedded by one real Celery worker, on a throw-away database.

    .venv/bin/python -m toolrouter.devservices -- .venv/bin/python bench/bench_embedding.py [--tools 10000]

Tools are generated deterministically from the bfcl-dev catalog (each tool varied with a
suffix, so every text is different and nothing is cached). The catalog import enqueues the
embedding work on commit; the embedding clock runs from the commit until every tool is `ready`
(the import's own time is printed apart).
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.common import Table, add_data_dir_argument, bfcl_dir, print_tables, save_results, use_data_dir  # noqa: E402
from bench.throwaway import throwaway_services  # noqa: E402

VARIANTS = ["", "for teams", "in bulk", "with history", "for admins", "on mobile", "asynchronously",
            "from archives", "for partners", "with audit", "in sandbox", "for reports", "by region"]


def generated_tools(count: int) -> list[dict]:
    base = json.loads((bfcl_dir() / "catalog.json").read_text())["tools"]
    tools = []
    for i in range(count):
        source = base[i % len(base)]
        round_ = i // len(base)
        suffix = VARIANTS[round_ % len(VARIANTS)] + (f" v{round_}" if round_ >= len(VARIANTS) else "")
        tools.append({**source, "name": f"{source['name']}_{round_}" if round_ else source["name"],
                      "description": f"{source['description']} {suffix}".strip(),
                      "hypothetical_queries": [], "related_tools": [], "category": None})
    return tools


def wait_until_every_tool_is_ready() -> None:
    from toolcatalog.models import EmbeddingStatus, Tool

    while Tool.objects.exclude(embedding_status=EmbeddingStatus.READY).exists():
        if Tool.objects.filter(embedding_status=EmbeddingStatus.FAILED).exists():
            raise SystemExit("an embedding failed; see the worker's output")
        time.sleep(0.25)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tools", type=int, default=10_000)
    parser.add_argument("--tiny", action="store_true", help="CI mode: 100 tools")
    add_data_dir_argument(parser)
    args = parser.parse_args()
    use_data_dir(args)
    if args.tiny:
        args.tools = 100
    database, redis_db = ("toolrouter_bench_embed_tiny", "10") if args.tiny else ("toolrouter_bench_embed", "11")
    with throwaway_services(database, redis_db=redis_db):
        from toolcatalog import services

        worker = subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "toolrouter", "worker", "--concurrency", "1",
             "--loglevel", "WARNING", "--without-heartbeat", "--without-gossip", "--without-mingle"],
            cwd=ROOT, env=os.environ.copy(),
        )
        try:
            from toolrouter.celery import app

            while not app.control.ping(timeout=1.0):
                time.sleep(0.5)
            # One tool first, so that the worker has loaded its model before the clock starts.
            services.import_catalog({"format": "toolcatalog/v1", "categories": [], "tools": [
                {"name": "warm_up_the_model", "description": "Loads the model", "hypothetical_queries": []}]})
            wait_until_every_tool_is_ready()
            started = time.perf_counter()
            services.import_catalog({"format": "toolcatalog/v1", "categories": [],
                                    "tools": generated_tools(args.tools)})
            imported = time.perf_counter() - started
            committed = time.perf_counter()
            wait_until_every_tool_is_ready()
            elapsed = time.perf_counter() - committed
        finally:
            worker.terminate()
            worker.wait(timeout=30)
    from django.conf import settings

    table = Table("One Celery worker embeds an imported catalog (the local model, catalog precision "
                  f"{settings.EMBEDDING_LOCAL_CATALOG_PRECISION})",
                  ["what", "tools", "seconds", "tools/s", "target"])
    table.add("import (the save never waits for embeddings)", args.tools, imported, args.tools / imported, "–")
    table.add("embedding", args.tools, elapsed, args.tools / elapsed,
              ("<= 60 s: " + ("met" if elapsed <= 60 else "missed")) if args.tools == 10_000 else "–")
    table.notes.append("The clock runs from the import's commit until every tool is `ready`; the worker's model "
                       "was loaded before (one tool embedded first). One worker process (--concurrency 1), all cores.")
    print_tables([table])
    save_results("bench_embedding-tiny" if args.tiny else "bench_embedding", [table])


if __name__ == "__main__":
    main()
