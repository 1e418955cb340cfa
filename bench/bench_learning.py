"""The learning pages with a large usage log, on a throw-away database (never the live one).

    .venv/bin/python -m toolrouter.devservices -- .venv/bin/python bench/bench_learning.py [--rows 1000000]

The demo catalog is imported and embedded; bench/bench_usage.py's generator writes --rows logged
requests over 30 days (5 % with feedback: the top tool used, each also missing a tool) and the
daily rollups are built. Then, timed: the suggestion refresh and the catalog doctor's check (the
background jobs the pages read), and the renders of /admin/suggestions/, /admin/catalog-doctor/ and
the dashboard with its learning-loop card (median of 5, through the Django test client, logged in
as staff), and the card's own reads. Baseline of the same run: the admin index page, which reads nothing of the log.
"""
from __future__ import annotations

import argparse
import io
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.bench_usage import generate_log  # noqa: E402
from bench.common import DEMO_CATALOG, Table, print_tables, save_results  # noqa: E402
from bench.throwaway import throwaway_services  # noqa: E402

BENCH_DB = "toolrouter_bench_learning"
BENCH_REDIS_DB = "5"
PAGES = [("admin index (baseline)", "/admin/"), ("suggestions", "/admin/suggestions/"),
         ("catalog doctor", "/admin/catalog-doctor/"), ("dashboard 24 h", "/dashboard/?range=24h"),
         ("dashboard 30 d", "/dashboard/?range=30d")]


def timed(function) -> tuple[object, float]:
    started = time.perf_counter()
    result = function()
    return result, (time.perf_counter() - started) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    table = Table(f"Learning pages with {args.rows:,} logged requests", ["what", "first ms", "median ms", "max ms"])
    with throwaway_services(BENCH_DB, BENCH_REDIS_DB):
        from django.contrib.auth import get_user_model
        from django.core.management import call_command
        from django.test import Client
        from django.utils import timezone

        from routing import doctor, learning
        from toolcatalog import services
        from usage import services as usage
        from usage.learning_selectors import learning_loop
        from usage.models import Suggestion
        from usage.selectors import resolve_range

        services.import_catalog(json.loads(DEMO_CATALOG.read_text()))
        call_command("reembed", stdout=io.StringIO(), stderr=io.StringIO())
        now = timezone.now()
        generate_log(args.rows, now)
        usage.prune_and_roll_up(now)
        report, refresh_ms = timed(learning.refresh_suggestions)
        print(f"  suggestion refresh: {refresh_ms:,.0f} ms ({report.proposed} proposed; "
              f"{Suggestion.objects.count()} suggestions)")
        table.add("suggestion refresh (background)", round(refresh_ms), None, None)
        checked, check_ms = timed(doctor.check_catalog)
        print(f"  catalog doctor check: {check_ms:,.0f} ms ({checked.findings['queries_routed']} queries routed)")
        table.add("catalog doctor check (background)", round(check_ms), None, None)

        user = get_user_model().objects.create_superuser(username="bench-staff", password="bench-only")
        client = Client()
        client.force_login(user)
        for label, url in PAGES:
            timings = []
            for _ in range(args.repeats):
                response, ms = timed(lambda url=url: client.get(url))
                assert response.status_code == 200, (url, response.status_code)
                timings.append(ms)
            print(f"  {label:24s} first {timings[0]:6.0f} ms, median {statistics.median(timings):6.0f} ms, "
                  f"max {max(timings):6.0f} ms over {args.repeats} renders")
            table.add(f"render {label}", round(timings[0]), round(statistics.median(timings)), round(max(timings)))
        for range_key in ("24h", "30d"):  # what the learning-loop card adds to the dashboard
            timings = [timed(lambda k=range_key: learning_loop(resolve_range(k)))[1] for _ in range(args.repeats)]
            print(f"  learning card {range_key:>3}       first {timings[0]:6.0f} ms, median "
                  f"{statistics.median(timings):6.0f} ms")
            table.add(f"the dashboard's learning card alone, {range_key}", round(timings[0]),
                      round(statistics.median(timings)), round(max(timings)))
    table.notes.append("target: each learning page under 500 ms with 1,000,000 logged requests")
    print_tables([table])
    save_results("bench_learning", [table])


if __name__ == "__main__":
    main()
