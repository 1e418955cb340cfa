"""The MCP door's tool_search over loopback, beside the REST route endpoint, in one run.

    .venv/bin/python -m toolrouter.devservices -- .venv/bin/python bench/mcp_door.py [--requests 300] [--tiny]

On a throw-away database (`toolrouter_bench_mcp`, Redis db 10) the demo catalog is imported and
embedded with the local model; gunicorn (one sync worker, production settings, one ONNX thread
as docker-compose sets it: `bench/server.py`) serves it. One
client, back to back, over keep-alive connections on both sides:
- MCP: the official SDK client (`mcp.client.streamable_http`) in one session calls `tool_search`
  with each query (the whole `tools/call` round trip: JSON-RPC, session check, routing, the
  MCP definitions, and the SDK client's own work on the answer);
- REST: `POST /api/v1/route` with the same limit (httpx2, the SDK's HTTP client), sent right
  after, so both doors see the same moment of the machine's load (with fresh queries its own
  unique text, so it never gets the vector the MCP call just cached).
Two phases per door: fresh queries (the demo catalog's hypothetical queries made unique by a
counter, so every semantic request embeds its query with MiniLM on the CPU) and repeated ones
(20 queries cycled: their vectors come from the query-embedding cache, so what remains is the
door and the ranking). The machine's load average is printed with the figures: on a shared
2-core machine, other processes' CPU use shows directly in the fresh-query latency. Target
(issue 16): MCP tool_search p50 <= 15 ms.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a script from anywhere

import httpx2  # noqa: E402

from bench.common import ROOT, Latency, Table, print_tables, save_results  # noqa: E402
from bench.server import Gunicorn, api_key  # noqa: E402
from bench.throwaway import throwaway_services  # noqa: E402

TARGET_MS = 15.0
LIMIT = 5


def queries(count: int, *, repeated: bool = False) -> list[str]:
    demo = json.loads((ROOT / "toolcatalog" / "fixtures" / "demo_catalog.json").read_text())
    base = [q for t in demo["tools"] for q in t.get("hypothetical_queries", [])]
    if repeated:
        return [base[i % 20] for i in range(count)]
    return [f"{base[i % len(base)]} {i}" for i in range(count)]


async def latencies(base_url: str, key: str, asked: list[str], warm: int, *,
                    repeated: bool) -> tuple[Latency, Latency]:
    """Each query through both doors, one right after the other (MCP, then REST), so that the
    machine's load at that moment weighs on both alike."""
    from mcp.client.session import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    mcp, rest = Latency(), Latency()
    headers = {"Authorization": f"Bearer {key}"}
    async with httpx2.AsyncClient(headers=headers, timeout=120) as http, \
            httpx2.AsyncClient(headers=headers, timeout=120) as plain:
        async with streamable_http_client(base_url + "/mcp", http_client=http) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                for i, query in enumerate(asked):
                    started = time.perf_counter()
                    result = await session.call_tool("tool_search", {"query": query, "limit": LIMIT})
                    mcp_ms = (time.perf_counter() - started) * 1000
                    if result.is_error or not result.structured_content["tools"]:
                        raise RuntimeError(f"tool_search failed for {query!r}: {result.content}")
                    started = time.perf_counter()
                    # Fresh queries: its own unique text, so REST does not get the vector MCP just cached.
                    rest_query = query if repeated else query + " again"
                    response = await plain.post(base_url + "/api/v1/route", json={"query": rest_query, "limit": LIMIT})
                    rest_ms = (time.perf_counter() - started) * 1000
                    if response.status_code != 200:
                        raise RuntimeError(f"route failed: {response.status_code} {response.text[:300]}")
                    if i >= warm:
                        mcp.samples.append(mcp_ms)
                        rest.samples.append(rest_ms)
    return mcp, rest


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--requests", type=int, default=300, help="measured calls per door")
    parser.add_argument("--tiny", action="store_true", help="a quick run (30 calls per door)")
    args = parser.parse_args()
    logging.getLogger("httpx2").setLevel(logging.WARNING)  # one line per request would print 1,200 lines
    count = 30 if args.tiny else args.requests
    warm = 20
    with throwaway_services("toolrouter_bench_mcp", redis_db="10"):
        from django.core.management import call_command

        from toolcatalog import services

        services.import_catalog(json.loads((ROOT / "toolcatalog" / "fixtures" / "demo_catalog.json").read_text()))
        call_command("reembed", stdout=open("/dev/null", "w"), stderr=open("/dev/null", "w"))
        key = api_key()
        with Gunicorn(workers=1, log_name="gunicorn-mcp-door") as server:
            figures = {}
            for phase in ("fresh", "repeated"):
                # The first `warm` calls (index build, model load, connections) are not counted.
                asked = queries(warm + count, repeated=phase == "repeated")
                figures[phase] = asyncio.run(latencies(server.url(""), key, asked, warm,
                                                       repeated=phase == "repeated"))
    load = os.getloadavg()[0]
    table = Table("MCP door tool_search vs REST route (demo catalog, one client, loopback, gunicorn 1 worker)",
                  ["queries", "door", "calls", "p50 ms", "p95 ms", "MCP p50 / REST p50", "target"])
    for phase, (mcp, rest) in figures.items():
        table.add(phase, "MCP tools/call tool_search (SDK client)", len(mcp.samples), round(mcp.p50, 2),
                  round(mcp.p95, 2), round(mcp.p50 / rest.p50, 2),
                  f"p50 <= {TARGET_MS:g} ms: {'met' if mcp.p50 <= TARGET_MS else 'missed'}")
        table.add(phase, "REST POST /api/v1/route", len(rest.samples), round(rest.p50, 2), round(rest.p95, 2),
                  1.0, "baseline")
    table.notes.append(f"load average during the run: {load:.2f} on {os.cpu_count()} cores")
    print_tables([table])
    save_results("mcp_door-tiny" if args.tiny else "mcp_door", [table],
                 {phase: {"mcp_p50_ms": m.p50, "rest_p50_ms": r.p50} for phase, (m, r) in figures.items()}
                 | {"target_ms": TARGET_MS, "load_average": load})


if __name__ == "__main__":
    main()
