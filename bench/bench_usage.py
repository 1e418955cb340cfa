"""Usage analytics benchmark, on a throw-away database (never the live one).

    .venv/bin/python -m toolrouter.devservices -- .venv/bin/python bench/bench_usage.py [--rows 1000000]

(a) Logging overhead: p50/p95 of `record_request` over 10,000 calls against a no-op baseline
    measured in the same run (the buffer goes to a Redis database of its own, db 13).
(b) Generates a log of --rows requests with one INSERT ... SELECT FROM generate_series, spread
    evenly over 30 days, tools drawn from the demo catalog with a skewed (Zipf-like) choice,
    plus feedback for 5 % of them (their top tool used, each also missing a tool, the hard case
    for the learning pages; half of them read by the proxy); builds the daily rollups; then times the dashboard render
    for 24 h, 7 d and 30 d through the Django test client logged in as staff.
The database `toolrouter_bench` is created for the run and dropped afterwards.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.throwaway import throwaway_services  # noqa: E402

BENCH_DB = "toolrouter_bench"
BENCH_REDIS_DB = "13"


def _percentiles(samples_ns: list[int]) -> tuple[float, float]:
    ordered = sorted(samples_ns)
    return ordered[len(ordered) // 2] / 1000, ordered[int(len(ordered) * 0.95)] / 1000


def bench_overhead(calls: int = 10_000) -> None:
    from shared.redis_client import get_redis
    from usage import services as usage

    def noop(record) -> None:
        return None

    records = [_sample_record(i) for i in range(calls)]
    for label, function in (("no-op baseline", noop), ("record_request", usage.record_request)):
        for record in records[:200]:  # warm up connections and caches
            function(record)
        samples = []
        for record in records:
            started = time.perf_counter_ns()
            function(record)
            samples.append(time.perf_counter_ns() - started)
        p50, p95 = _percentiles(samples)
        print(f"  {label:16s} p50 {p50:7.1f} µs   p95 {p95:7.1f} µs   ({calls} calls)")
    get_redis().delete(usage.REQUESTS_KEY)


def _sample_record(i: int):
    from usage.services import RequestRecord

    return RequestRecord(
        request_id=f"bench-{i}", endpoint="route", api_key_id=None, client="bench", toolset=None,
        query=f"play some jazz number {i}", strategy="bm25", confidence=0.8, fallback=False, categories=["music"],
        results=[{"name": "play_music", "rank": 1, "score": 0.91}, {"name": "search_music", "rank": 2, "score": 0.7},
                 {"name": "get_artist_info", "rank": 3, "score": 0.52}],
        latency_ms=3.2, tokens_selected=480, tokens_catalog=13_000, tokens_saved=12_520, session_id=None,
    )


GENERATE_LOG = """
WITH params AS (SELECT %(tools)s::text[] AS tools, %(categories)s::text[] AS cats, %(n)s::int AS n_tools),
g AS (
  SELECT i, random() AS r_tool, random() AS r_strategy, random() AS r_conf, random() AS r_latency,
         random() AS r_query, random() AS r_client
  FROM generate_series(1, %(rows)s) AS i
),
picked AS (
  SELECT g.*, 1 + floor(p.n_tools * power(g.r_tool, 2.5))::int AS t, p.tools, p.cats, p.n_tools FROM g, params p
)
INSERT INTO routing_requestlog (created_at, request_id, client, toolset, endpoint, query, query_hash, strategy,
  strategy_class, confidence, fallback, categories, results, latency_ms, tokens_selected, tokens_catalog,
  tokens_saved, session_id)
SELECT
  %(now)s::timestamptz - interval '30 days' * (1 - i::float8 / %(rows)s),
  'gen-' || i,
  'client-' || (1 + floor(power(r_client, 2) * 6))::int,
  NULL,
  CASE WHEN r_client < 0.8 THEN 'route' ELSE 'tool_search' END,
  'query ' || floor(power(r_query, 3) * 20000)::int,
  md5('query ' || floor(power(r_query, 3) * 20000)::int),
  CASE WHEN r_strategy < 0.55 THEN 'bm25' WHEN r_strategy < 0.75 THEN 'auto:hybrid'
       WHEN r_strategy < 0.85 THEN 'vector' WHEN r_strategy < 0.97 THEN 'hierarchical' ELSE 'hybrid' END,
  CASE WHEN r_strategy >= 0.97 THEN 'fallback' WHEN r_strategy < 0.55 THEN 'fast'
       WHEN r_strategy < 0.75 THEN 'hybrid' WHEN r_strategy < 0.85 THEN 'semantic' ELSE 'hierarchical' END,
  CASE WHEN r_conf < 0.04 THEN NULL ELSE r_conf END,
  r_strategy >= 0.97,
  CASE WHEN r_conf < 0.04 OR cats[t] IS NULL THEN '{}'::varchar[] ELSE ARRAY[cats[t]]::varchar[] END,
  CASE WHEN r_conf < 0.04 THEN '[]'::jsonb ELSE jsonb_build_array(
    jsonb_build_object('name', tools[t], 'rank', 1, 'score', round(r_conf::numeric, 3)),
    jsonb_build_object('name', tools[1 + t %% n_tools], 'rank', 2, 'score', round((r_conf * 0.8)::numeric, 3)),
    jsonb_build_object('name', tools[1 + (t + 7) %% n_tools], 'rank', 3, 'score', round((r_conf * 0.6)::numeric, 3)))
  END,
  round((1 + exp(r_latency * 4))::numeric, 2),
  400 + floor(r_tool * 800)::int, 13000, 13000 - (400 + floor(r_tool * 800)::int),
  NULL
FROM picked ORDER BY i
"""

GENERATE_FEEDBACK = """
INSERT INTO routing_feedback (request_id, used_tools, missing_tools, offered_and_used, used_ranks, offered_unused,
                              missed, success, source, created_at)
SELECT request_id,
       ARRAY[results->0->>'name']::varchar[],
       CASE WHEN id %% 10 = 0 THEN ARRAY['ask_user_clarification']::varchar[] ELSE '{}'::varchar[] END,
       ARRAY[results->0->>'name']::varchar[],
       ARRAY[1],
       ARRAY[results->1->>'name', results->2->>'name']::varchar[],
       CASE WHEN id %% 10 = 0 THEN ARRAY['ask_user_clarification']::varchar[] ELSE '{}'::varchar[] END,
       id %% 7 <> 0,
       CASE WHEN id %% 40 = 0 THEN 'proxy' ELSE 'client' END,
       created_at + interval '5 seconds'
FROM routing_requestlog WHERE id %% 20 = 0 AND jsonb_array_length(results) > 0
"""


def generate_log(rows: int, now) -> None:
    from django.db import connection

    catalog = json.loads((ROOT / "toolcatalog" / "fixtures" / "demo_catalog.json").read_text())
    tools = [t["name"] for t in catalog["tools"]]
    categories = [t.get("category") for t in catalog["tools"]]
    started = time.perf_counter()
    with connection.cursor() as cursor:
        cursor.execute(GENERATE_LOG, {"tools": tools, "categories": categories, "n": len(tools), "rows": rows,
                                      "now": now})
        cursor.execute(GENERATE_FEEDBACK, {})  # params given, so "%%" means "%"
        cursor.execute("ANALYZE routing_requestlog; ANALYZE routing_feedback")
    print(f"  generated {rows:,} requests over 30 days in {time.perf_counter() - started:.1f} s "
          f"({len(tools)} demo-catalog tools, skewed choice; 5 % with feedback)")


def time_dashboard(repeats: int = 5) -> None:
    from django.contrib.auth import get_user_model
    from django.test import Client

    user = get_user_model().objects.create_user(username="bench-staff", password="bench-only", is_staff=True)
    client = Client()
    client.force_login(user)
    for range_key in ("24h", "7d", "30d"):
        timings = []
        for _ in range(repeats):
            started = time.perf_counter()
            response = client.get("/dashboard/", {"range": range_key})
            timings.append((time.perf_counter() - started) * 1000)
            assert response.status_code == 200, response.status_code
        print(f"  dashboard {range_key:>3}: first {timings[0]:6.0f} ms, median {statistics.median(timings):6.0f} ms, "
              f"max {max(timings):6.0f} ms over {repeats} renders")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=1_000_000)
    args = parser.parse_args()

    with throwaway_services(BENCH_DB, BENCH_REDIS_DB):
        from django.utils import timezone

        from toolcatalog import services
        from usage import services as usage

        services.import_catalog(json.loads((ROOT / "toolcatalog" / "fixtures" / "demo_catalog.json").read_text()))
        print("(a) logging overhead")
        bench_overhead()
        print(f"(b) dashboard over a generated log of {args.rows:,} requests")
        now = timezone.now()
        generate_log(args.rows, now)
        started = time.perf_counter()
        result = usage.prune_and_roll_up(now)
        print(f"  rolled up {len(result['rolled_up'])} days in {time.perf_counter() - started:.1f} s "
              f"(pruned {result['pruned_requests']} rows past retention)")
        time_dashboard()


if __name__ == "__main__":
    main()
