"""Issue 13's attacks against a running server: each case's answer before (from the issue) and now.

    python -m toolrouter.devservices -- .venv/bin/python bench/hardening.py

Serves the demo catalog with gunicorn (production settings, two workers; a second, one-worker
server in development mode for the debug-page cases) on a throw-away database, sends every case
of issue 13, prints a table (case, before, after as measured, the limit), then checks that the
server is healthy (`/readyz` 200) and that nothing was stored from the rejected requests.
"""
from __future__ import annotations

import argparse
import http.client
import json
import re
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import DEMO_CATALOG, RESULTS_DIR  # noqa: E402
from bench.server import Gunicorn  # noqa: E402
from bench.throwaway import throwaway_services  # noqa: E402

BIG = "9" * 5000


@dataclass
class Reply:
    status: int  # 0: no answer within the timeout
    seconds: float
    body: bytes
    headers: dict[str, str]

    def json(self) -> Any:
        try:
            return json.loads(self.body)
        except ValueError:
            return None

    def brief(self) -> str:
        if not self.status:
            return f"no answer in {self.seconds:.0f} s"
        data = self.json()
        code = data.get("error") if isinstance(data, dict) else None
        kind = "JSON" if self.headers.get("content-type", "").startswith("application/json") else \
            self.headers.get("content-type", "?").split(";")[0]
        return f"{self.status} {code or kind} ({self.seconds:.2f} s)"


def send(port: int, method: str, path: str, body: bytes | str | dict | list | None = None,
         headers: dict[str, str] | None = None, timeout: float = 120.0) -> Reply:
    raw = json.dumps(body).encode() if isinstance(body, (dict, list)) else body.encode() if isinstance(body, str) else body
    all_headers = {"Content-Type": "application/json", **(headers or {})}
    started = time.perf_counter()
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        connection.request(method, path, body=raw, headers=all_headers)
        response = connection.getresponse()
        data = response.read()
        return Reply(response.status, time.perf_counter() - started, data,
                     {k.lower(): v for k, v in response.getheaders()})
    except (OSError, http.client.HTTPException):
        return Reply(0, time.perf_counter() - started, b"", {})
    finally:
        connection.close()


def bearer(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


# --- documents the attacker sent ---------------------------------------------------------
def ref_fan_out(levels: int) -> dict:
    """Each schema has two properties pointing at the next: 2 ** levels expansions from one operation."""
    schemas = {f"S{i}": {"type": "object", "properties": {"a": {"$ref": f"#/components/schemas/S{i + 1}"},
                                                          "b": {"$ref": f"#/components/schemas/S{i + 1}"}}}
               for i in range(levels)}
    schemas[f"S{levels}"] = {"type": "string"}
    return {"openapi": "3.0.0", "info": {"title": "fan", "version": "1"}, "components": {"schemas": schemas},
            "paths": {"/a": {"post": {"operationId": "make_a", "requestBody": {"content": {"application/json": {
                "schema": {"$ref": "#/components/schemas/S0"}}}}}}}}


def billion_laughs(levels: int = 9, fan_out: int = 9) -> str:
    """Each level lists the one before `fan_out` times: fan_out ** levels values once expanded."""
    lines = ['openapi: "3.0.0"', "info: {title: lol, version: '1'}", "x0: &x0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    lines += [f"x{i}: &x{i} [" + ", ".join([f"*x{i - 1}"] * fan_out) + "]" for i in range(1, levels + 1)]
    lines.append(f"paths: {{/a: {{get: {{operationId: a, summary: *x{levels}}}}}}}")
    return "\n".join(lines)


def chat_body(query: str, n_tools: int, run: str) -> dict:
    tools = [{"type": "function", "function": {
        "name": f"tool_{i}", "description": f"{['send an email', 'read the weather', 'book a flight', 'play music'][i % 4]} "
                                            f"variant {i} {run}",
        "parameters": {"type": "object", "properties": {"x": {"type": "string"}}}}} for i in range(n_tools)]
    return {"model": "gpt-4o", "messages": [{"role": "user", "content": query}], "tools": tools}


class Listener(BaseHTTPRequestHandler):
    """Stands where a `$ref` URL points: it must never be asked."""

    seen: list[str] = []

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        Listener.seen.append(self.path)
        self.send_response(200)
        self.end_headers()

    def log_message(self, *args: Any) -> None:
        pass


@dataclass
class Case:
    name: str
    before: str
    limit: str
    run: Callable[[], str]


def admin_session(port: int) -> tuple[dict[str, str], str]:
    """Log in as the admin; the production cookies are Secure, so they are carried by hand over http."""
    page = send(port, "GET", "/admin/login/")
    cookies = _cookies(page)
    token = re.search(rb'name="csrfmiddlewaretoken" value="([^"]+)"', page.body).group(1).decode()  # type: ignore[union-attr]
    form = f"csrfmiddlewaretoken={token}&username=admin&password=bench-admin-pw&next=/admin/"
    login = send(port, "POST", "/admin/login/", form, {"Content-Type": "application/x-www-form-urlencoded",
                                                       "Cookie": _cookie_header(cookies),
                                                       "Referer": f"http://127.0.0.1:{port}/admin/login/"})
    cookies.update(_cookies(login))
    return cookies, token


def _cookies(reply: Reply) -> dict[str, str]:
    found = {}
    for name in ("csrftoken", "sessionid"):
        match = re.search(rf"{name}=([^;]+)", reply.headers.get("set-cookie", ""))
        if match:
            found[name] = match.group(1)
    return found


def _cookie_header(cookies: dict[str, str]) -> str:
    return "; ".join(f"{k}={v}" for k, v in cookies.items())


def admin_import(port: int, session: tuple[dict[str, str], str], text: str) -> str:
    from urllib.parse import urlencode

    cookies, _ = session
    page = send(port, "GET", "/admin/catalog-import/", headers={"Cookie": _cookie_header(cookies)})
    token = re.search(rb'name="csrfmiddlewaretoken" value="([^"]+)"', page.body)
    if page.status != 200 or token is None:
        return f"admin page {page.status}"
    form = urlencode({"csrfmiddlewaretoken": token.group(1).decode(), "text": text, "action": "preview"})
    reply = send(port, "POST", "/admin/catalog-import/", form, {
        "Content-Type": "application/x-www-form-urlencoded", "Cookie": _cookie_header(cookies),
        "Referer": f"http://127.0.0.1:{port}/admin/catalog-import/"})
    friendly = b"Nothing was imported" in reply.body
    return f"{reply.status}, {'a friendly error' if friendly else 'no error shown'} ({reply.seconds:.2f} s)"


def run(tiny: bool) -> list[dict[str, str]]:
    from django.contrib.auth.models import User

    from api.models import ApiKey
    from api.services import create_api_key
    from toolcatalog import services
    from toolcatalog.models import Category, Tool, Toolset

    services.import_catalog(json.loads(DEMO_CATALOG.read_text()))
    User.objects.create_superuser("admin", password="bench-admin-pw")
    demo_tools = set(Tool.objects.values_list("name", flat=True))
    _, curator = create_api_key("bench-curator", ["catalog"])
    _, router = create_api_key("bench-router", ["route"])
    weather = Toolset.objects.create(name="weather-only")
    weather.categories.add(Category.objects.get(name="weather"))
    mixed = Toolset.objects.create(name="mixed")
    mixed.tools.add(*Tool.objects.filter(name__in=["get_current_weather", "play_music"]))
    old_key, old_bound = create_api_key("bench-old-bound", ["route"], weather)
    ApiKey.objects.filter(pk=old_key.pk).update(scopes=["route", "catalog"])  # as stored before the rule
    _, session_key = create_api_key("bench-session", ["route"], mixed)

    listener = ThreadingHTTPServer(("127.0.0.1", 0), Listener)
    threading.Thread(target=listener.serve_forever, daemon=True).start()
    listen_url = f"http://127.0.0.1:{listener.server_address[1]}"
    rows: list[dict[str, str]] = []

    with Gunicorn(workers=2, log_name="hardening") as prod, \
            Gunicorn(workers=1, log_name="hardening-debug", env={"DJANGO_DEBUG": "1"}) as debug:
        port = prod.port
        imp = lambda doc, **extra: send(port, "POST", "/api/v1/catalog/import",  # noqa: E731
                                        {"document": doc, "dry_run": True, **extra}, bearer(curator))
        filt = lambda body, query="", headers=None: send(port, "POST", "/api/v1/filter" + query, body,  # noqa: E731
                                                         {**bearer(router), **(headers or {})})
        run_id = str(int(time.time()))
        session = admin_session(port)

        def big_ints() -> str:
            paths = ["/api/v1/route", "/api/v1/tool-search", "/api/v1/feedback", "/api/v1/tools",
                     "/api/v1/catalog/import", "/api/v1/filter", "/v1/chat/completions"]
            answers = [send(port, "POST", p, f'{{"query": "x", "limit": {BIG}, "tools": [], "document": {BIG}}}',
                            bearer(curator if "tools" in p or "import" in p else router)) for p in paths]
            return ", ".join(sorted({a.brief().split(" (")[0] for a in answers})) + f" on all {len(paths)}"

        def names() -> str:
            statuses = [send(port, "POST", "/api/v1/tools", {"name": n, "description": "d"}, bearer(curator)).status
                        for n in ("-", ".", "..")]
            exports = [send(port, "GET", f"/api/v1/catalog/export?format={f}", None, bearer(curator)).status
                       for f in ("openai", "anthropic", "mcp")]
            return f"{'/'.join(map(str, statuses))}; exports {'/'.join(map(str, exports))}"

        def session_drop() -> str:
            body = {"query": "play some jazz", "session_id": f"s-{run_id}", "strategy": "bm25"}
            first = send(port, "POST", "/api/v1/route", body, bearer(session_key)).json()["session"]["active_tools"]
            mixed.tools.remove(Tool.objects.get(name="play_music"))
            time.sleep(0.2)
            body["query"] = "weather in Rome"
            later = send(port, "POST", "/api/v1/route", body, bearer(session_key)).json()["session"]["active_tools"]
            return f"play_music {'kept' if 'play_music' in later else 'dropped'} (was {first})"

        def failed_auth() -> str:
            answers = [send(port, "POST", "/api/v1/route", {"query": "x"}, bearer(f"tr_guess_{i}")) for i in range(40)]
            statuses = [a.status for a in answers]
            first_429 = statuses.index(429) + 1 if 429 in statuses else None
            return (f"{statuses.count(401)}x 401, then 429 from attempt {first_429} "
                    f"(Retry-After {answers[-1].headers.get('retry-after')} s)")

        def wrong_types() -> str:
            attempts = [("/api/v1/tools", {"name": "typed", "description": "d", "core": "yes"}),
                        ("/api/v1/tools", {"name": "typed", "description": "d", "enabled": "no"}),
                        ("/api/v1/tools", {"name": "typed", "description": 5}),
                        ("/api/v1/tools", {"name": 5, "description": "d"}),
                        ("/api/v1/catalog/import", {"document": [], "dry_run": "yes"})]
            return "/".join(str(send(port, "POST", p, b, bearer(curator)).status) for p, b in attempts)

        def listing() -> str:
            long = send(port, "POST", "/api/v1/tools", {"name": "huge", "description": "x" * 900_000}, bearer(curator))
            page = send(port, "GET", "/api/v1/tools?limit=20", None, bearer(curator))
            data = page.json()
            return (f"900 KB description: {long.status}; list: {len(data['results'])} of {data['count']} tools, "
                    f"{len(page.body) // 1000} KB, next={'yes' if data['next'] else 'no'}")

        def no_fetch() -> str:
            urls = [f"{listen_url}/s.json", "file:///etc/passwd", "http://169.254.169.254/latest/meta-data/"]
            tools = [{"name": f"ref_{i}", "description": "d", "parameters": {"type": "object", "properties": {
                "p": {"$ref": u}}}} for i, u in enumerate(urls)]
            imp(tools)
            doc = ref_fan_out(1)
            doc["components"]["schemas"]["S0"] = {"$ref": urls[0]}
            imp(doc)
            filt({"messages": [{"role": "user", "content": "weather"}], "tools": [
                {"type": "function", "function": {"name": "f", "description": "weather", "parameters": {"$ref": u}}}
                for u in urls]})
            return f"the listener received {len(Listener.seen)} requests"

        filter_new = 60 if tiny else 200
        cases = [
            Case("OpenAPI $ref fan-out, 14 levels (dry run)", "200 after 24 s", "IMPORT_MAX_REF_EXPANSIONS 10,000",
                 lambda: imp(ref_fan_out(14)).brief()),
            Case("OpenAPI $ref fan-out, 16 levels", "no answer in 120 s", "IMPORT_MAX_REF_EXPANSIONS 10,000",
                 lambda: imp(ref_fan_out(16)).brief()),
            Case("YAML billion laughs (9 levels, 436 B)", "6.6 s, x4 per 2 more levels", "IMPORT_MAX_NODES 1,000,000",
                 lambda: imp(billion_laughs()).brief()),
            Case(f"filter: {filter_new} unseen tools", "34.7 s (200 tools)", "FILTER_MAX_NEW_EMBEDDINGS 64",
                 lambda: (lambda r: f"{r.brief()}, fallback {r.headers.get('x-toolrouter-fallback')}, "
                                    f"{r.headers.get('x-toolrouter-strategy')}")(
                     filt(chat_body("send an email to Ana", filter_new, run_id)))),
            Case("filter: 60 unseen tools (within the budget)", "-", "FILTER_MAX_NEW_EMBEDDINGS 64",
                 lambda: (lambda r: f"{r.brief()}, embedded inline, {r.headers.get('x-toolrouter-strategy')}")(
                     filt(chat_body("book a flight to Oslo", 60, run_id + "b")))),
            Case("filter: 2,000 unseen tools", "no answer in 300 s", "FILTER_MAX_TOOLS 1,000",
                 lambda: filt(chat_body("send an email", 2000, run_id)).brief()),
            Case("integer of 5,000 digits, every JSON door", "500", "Python's 4,300 digits",
                 big_ints),
            Case("JSON nested 1,000 deep, as import text", "500 RecursionError", "IMPORT_MAX_DEPTH 64",
                 lambda: imp("[" * 1000 + "]" * 1000).brief()),
            Case("YAML nested 600 deep, as import text", "500 RecursionError", "IMPORT_MAX_DEPTH 64",
                 lambda: imp("- " * 600 + "x").brief()),
            Case("tools_path=$.tools.`sorted`", "500", "-",
                 lambda: filt(chat_body("weather", 3, run_id), "?tools_path=$.tools.%60sorted%60").brief()),
            Case("query_path of 1,000 segments", "500", "FILTER_MAX_JSONPATH_CHARS 500",
                 lambda: filt(chat_body("weather", 3, run_id), "?query_path=$." + ".".join(["a"] * 1000)).brief()),
            Case("the same path in X-Toolrouter-Tools-Path (proxy)", "500", "-",
                 lambda: send(port, "POST", "/v1/chat/completions", chat_body("weather", 3, run_id),
                              {**bearer(router), "X-Toolrouter-Tools-Path": "$.tools.`sorted`"}).brief()),
            Case("tools named -, ., .. then exports", "201 each; exports 500", "engine/names.py rule", names),
            Case("admin import page: deep and big-integer text", "500 debug page", "IMPORT_MAX_DEPTH",
                 lambda: admin_import(port, session, "[" * 1000 + "]" * 1000) + "; "
                 + admin_import(port, session, '[{"name": "a", "n": ' + BIG + "}]")),
            Case("bound key with catalog scope: GET /api/v1/tools", "200, every tool", "bound => no catalog",
                 lambda: send(port, "GET", "/api/v1/tools", None, bearer(old_bound)).brief()),
            Case("bound key with catalog scope: PATCH its toolset", "200, toolset widened", "bound => no catalog",
                 lambda: send(port, "PATCH", "/api/v1/toolsets/weather-only", {"tools": ["play_music"]},
                              bearer(old_bound)).brief()),
            Case("bound key with catalog scope: export", "200, every tool", "bound => no catalog",
                 lambda: send(port, "GET", "/api/v1/catalog/export", None, bearer(old_bound)).brief()),
            Case("session after a tool left the key's toolset", "tool still in active_tools", "-", session_drop),
            Case("core 'yes', enabled 'no', description 5, name 5, dry_run 'yes'", "stored, coerced", "JSON types",
                 wrong_types),
            Case("unknown /api/ path (development)", "debug 404 listing every URL", "-",
                 lambda: send(debug.port, "GET", "/api/v1/nope").brief()),
            Case("POST /admin (development)", "500 debug page with DB/Redis URLs", "-",
                 lambda: send(debug.port, "POST", "/admin", "{}").brief()),
            Case("POST /api/schema (development)", "500 debug page", "-",
                 lambda: send(debug.port, "POST", "/api/schema", "{}").brief()),
            Case("GET /api/v1/tools with a 900 KB description", "1 MB, no pages", "CATALOG_MAX_TEXT_CHARS 10,000; "
                 "API_PAGE_SIZE 100", listing),
            Case("$ref to file://, 169.254.169.254, a local server", "stored, never fetched", "local refs only",
                 no_fetch),
            # Last: afterwards this address may not try a key a worker has not seen for a minute.
            Case("40 unknown keys from one address", "401 each, a DB read each", "AUTH_FAILURES_PER_MINUTE 30",
                 failed_auth),
        ]
        for case in cases:
            after = case.run()
            rows.append({"case": case.name, "before": case.before, "after": after, "limit": case.limit})
            print(f"  {case.name}: {after}", flush=True)
        ready = send(port, "GET", "/readyz")
        ready_debug = send(debug.port, "GET", "/readyz")
    listener.shutdown()
    stored = set(Tool.objects.values_list("name", flat=True)) - demo_tools
    expected: set[str] = set()  # every import was a dry run, every other write was refused
    rows.append({"case": "server healthy after the run", "before": "-",
                 "after": f"/readyz {ready.status} and {ready_debug.status}, ready={ready.json()['ready']}",
                 "limit": "-"})
    rows.append({"case": "nothing stored from rejected requests", "before": "-",
                 "after": "yes" if stored == expected else f"NO: unexpected {sorted(stored - expected)}",
                 "limit": "-"})
    rows.append({"case": "bound key's toolset unchanged", "before": "-",
                 "after": "yes" if not Toolset.objects.get(name="weather-only").tools.exists() else "NO", "limit": "-"})
    return rows


def print_table(rows: list[dict[str, str]]) -> None:
    widths = {k: max(len(k), *(len(r[k]) for r in rows)) for k in ("case", "before", "after", "limit")}
    line = " | ".join(k.ljust(widths[k]) for k in widths)
    print("\n" + line + "\n" + "-+-".join("-" * w for w in widths.values()))
    for row in rows:
        print(" | ".join(row[k].ljust(widths[k]) for k in widths))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tiny", action="store_true", help="fewer unseen tools in the filter case")
    args = parser.parse_args()
    with throwaway_services("toolrouter_bench_hardening", redis_db="11"):
        rows = run(args.tiny)
    print_table(rows)
    RESULTS_DIR.mkdir(parents=True, exist_ok=True)
    (RESULTS_DIR / "hardening.json").write_text(json.dumps(rows, indent=1))
    if any(r["after"].startswith("NO") for r in rows):
        raise SystemExit(1)


if __name__ == "__main__":
    main()
