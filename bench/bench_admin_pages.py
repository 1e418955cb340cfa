"""Page load times of the admin and the dashboard, with 1,000,000 logged requests, on a throw-away database.

    .venv/bin/python -m toolrouter.devservices -- .venv/bin/python bench/bench_admin_pages.py [--rows 1000000]

Loads the demo catalog and embeds it in-process (so Try a query ranks as in production), generates
a usage log of --rows requests over 30 days (bench_usage.py's generator: skewed tools, six
clients, 5 % feedback) and rolls it up, then times every page an operator uses:

- server: the response time through the Django test client, logged in as staff (what the page
  costs the web process, rendering included);
- browser: Chromium's navigation timing (start to the load event: HTML, CSS, scripts, layout)
  against `manage.py runserver` on the same database, when /usr/bin/chromium is there.

Each figure is the median of --repeats loads after one warm-up load (whose time is printed apart
as "first"). The database `toolrouter_bench_pages` is created for the run and dropped afterwards.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.bench_usage import generate_log  # noqa: E402
from bench.throwaway import throwaway_services  # noqa: E402

BENCH_DB = "toolrouter_bench_pages"
BENCH_REDIS_DB = "12"
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
PASSWORD = "bench-only"
NAVIGATION_MS = "() => { const n = performance.getEntriesByType('navigation')[0]; return n.loadEventEnd - n.startTime; }"


def pages() -> list[tuple[str, str]]:
    from toolcatalog.models import Category, Tool

    tool = Tool.objects.get(name="play_music").pk
    category = Category.objects.get(name="music").pk
    return [
        ("dashboard 24 h", "/dashboard/?range=24h"),
        ("dashboard 7 days", "/dashboard/?range=7d"),
        ("dashboard 30 days", "/dashboard/?range=30d"),
        ("dashboard 30 days, one client", "/dashboard/?range=30d&client=client-3"),
        ("admin index", "/admin/"),
        ("tool list", "/admin/toolcatalog/tool/"),
        ("tool add", "/admin/toolcatalog/tool/add/"),
        ("tool change", f"/admin/toolcatalog/tool/{tool}/change/"),
        ("category change", f"/admin/toolcatalog/category/{category}/change/"),
        ("API key add", "/admin/api/apikey/add/"),
        ("import page", "/admin/catalog-import/"),
        ("try a query (auto + vector, hybrid)", "/admin/try-query/?query=how+do+I+say+thank+you+in+French"),
    ]


def _summary(timings: list[float]) -> tuple[float, float]:
    return timings[0], statistics.median(timings[1:])


def time_server(paths: list[tuple[str, str]], repeats: int) -> dict[str, tuple[float, float]]:
    from django.contrib.auth import get_user_model
    from django.test import Client

    client = Client()
    client.force_login(get_user_model().objects.get(username="bench-staff"))
    results = {}
    for name, path in paths:
        timings = []
        for _ in range(repeats + 1):
            started = time.perf_counter()
            response = client.get(path)
            timings.append((time.perf_counter() - started) * 1000)
            assert response.status_code == 200, (path, response.status_code)
        results[name] = _summary(timings)
    return results


def time_browser(paths: list[tuple[str, str]], repeats: int) -> dict[str, tuple[float, float]]:
    from playwright.sync_api import sync_playwright

    from toolrouter.devservices import free_port, wait_for_port

    port = free_port()
    server = subprocess.Popen([sys.executable, "manage.py", "runserver", f"127.0.0.1:{port}", "--noreload"],
                              cwd=ROOT, env=os.environ.copy(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    results = {}
    try:
        wait_for_port(port, timeout=60)
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
            page = browser.new_page(viewport={"width": 1400, "height": 900})
            page.goto(f"{base}/admin/login/")
            page.fill("#id_username", "bench-staff")
            page.fill("#id_password", PASSWORD)
            page.click("input[type=submit]")
            page.wait_for_url(f"{base}/admin/")
            for name, path in paths:
                timings = []
                for _ in range(repeats + 1):
                    page.goto(f"{base}{path}", wait_until="load")
                    timings.append(page.evaluate(NAVIGATION_MS))
                results[name] = _summary(timings)
            browser.close()
    finally:
        server.terminate()
        server.wait(timeout=20)
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--no-browser", action="store_true", help="server times only")
    args = parser.parse_args()

    with throwaway_services(BENCH_DB, BENCH_REDIS_DB):
        from django.contrib.auth import get_user_model
        from django.core.management import call_command
        from django.utils import timezone

        from toolcatalog import services
        from usage import services as usage

        started = time.perf_counter()
        services.import_catalog(json.loads((ROOT / "toolcatalog" / "fixtures" / "demo_catalog.json").read_text()))
        call_command("reembed", stdout=open(os.devnull, "w"), stderr=open(os.devnull, "w"))
        print(f"demo catalog imported and embedded in {time.perf_counter() - started:.0f} s")
        now = timezone.now()
        generate_log(args.rows, now)
        started = time.perf_counter()
        rolled = usage.prune_and_roll_up(now)
        print(f"  rolled up {len(rolled['rolled_up'])} days in {time.perf_counter() - started:.1f} s")
        get_user_model().objects.create_user(username="bench-staff", password=PASSWORD, is_staff=True,
                                             is_superuser=True)
        paths = pages()
        server = time_server(paths, args.repeats)
        browser = {} if args.no_browser or not CHROMIUM.exists() else time_browser(paths, args.repeats)
        print(f"\npage load times, median of {args.repeats} after one warm-up load, {args.rows:,} logged requests")
        print("| page | server ms (first) | server ms median | browser ms median (to load event) |")
        print("|---|---:|---:|---:|")
        for name, _ in paths:
            first, median = server[name]
            shown = f"{browser[name][1]:.0f}" if name in browser else "–"
            print(f"| {name} | {first:.0f} | {median:.0f} | {shown} |")


if __name__ == "__main__":
    main()
