"""HTTP load on `auto`'s fast path, then the same load while an admin edits the catalog every second.

    .venv/bin/python -m toolrouter.devservices -- .venv/bin/python bench/load.py [--seconds 60] [--tiny]

Server: gunicorn, two sync workers, production settings, over the 1,000-tool catalog of
`bench/catalogs.py` on a throw-away database (`toolrouter_bench_load`, Redis db 13).
Load: a Python generator in separate processes (threads inside them), each client sending its
next request as soon as the last one answered, for `--seconds` at 8 and at 32 clients. The
queries are those the engine answers on the `auto` fast path (checked over HTTP first); on a
catalog whose calibration found no fast-path gate (the generated one has no evidence), the
queries `auto` answers on its semantic path, and the tables say so. The
machine has 2 cores and the load generator shares them with the server (and the Celery worker
in the edit phase), so the requests/s are a floor for the server alone.

Edit phase: the same load at 32 clients while this process, through the ORM (the admin's path:
`full_clean`, save, signals), does one change a second in turn: edit a description, add a tool,
disable a tool that the load's queries return. A real Celery worker embeds the changes.
Checked afterwards: no 5xx and no failed request; every change is in the database; no answer
returned a tool whose disabling had committed before the request was sent; and every edited
or added tool, once its worker has embedded it, is found by a `vector` request for its new text.
"""
from __future__ import annotations

import argparse
import http.client
import json
import multiprocessing
import os
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a script from anywhere

from bench.common import RESULTS_DIR as LOG_DIR  # noqa: E402
from bench.common import ROOT, Latency, Table, add_data_dir_argument, print_tables, save_results, use_data_dir  # noqa: E402

COLOURS = ["amber", "cobalt", "crimson", "jade", "ochre", "violet", "teal", "scarlet", "ivory", "onyx"]
THINGS = ["kayak rental", "beehive inspection", "violin tuning", "greenhouse watering", "telescope booking",
          "pottery kiln firing", "sailboat mooring", "llama trekking", "chess tournament seating",
          "bonsai pruning", "glacier tour", "harpsichord repair"]


# -- the load generator (runs in child processes: standard library only) ------------------------
def _client_thread(port: int, key: str, queries: list[str], offset: int, deadline: float, out: list) -> None:
    body_of = [json.dumps({"query": q, "strategy": "auto"}).encode() for q in queries]
    headers = {"Content-Type": "application/json", "Authorization": f"Bearer {key}"}
    i = offset
    while time.time() < deadline:
        body = body_of[i % len(body_of)]
        i += 1
        sent = time.time()
        started = time.perf_counter()
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
            conn.request("POST", "/api/v1/route", body, headers)
            response = conn.getresponse()
            data = response.read()
            status = response.status
            conn.close()
        except OSError:
            status, data = 0, b""
        ms = (time.perf_counter() - started) * 1000
        names: tuple[str, ...] = ()
        if status == 200:
            try:
                names = tuple(m["name"] for m in json.loads(data)["matches"])
            except (ValueError, KeyError):
                status = -1  # a 200 that is not the documented answer counts as an error
        out.append((sent, ms, status, names))


def _client_process(port: int, key: str, queries: list[str], threads: int, first: int, deadline: float,
                    results) -> None:
    out: list = []
    workers = [threading.Thread(target=_client_thread, args=(port, key, queries, (first + t) * 7, deadline, out))
               for t in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    results.put(out)


def run_load(port: int, key: str, queries: list[str], clients: int, seconds: float) -> list[tuple]:
    """`clients` concurrent clients for `seconds`; every answer as (sent_at, ms, status, names)."""
    context = multiprocessing.get_context("spawn")
    processes = min(4, clients)
    results = context.Queue()
    deadline = time.time() + seconds + 3.0  # the children need ~1-2 s to start
    children = [context.Process(target=_client_process,
                                args=(port, key, queries, clients // processes + (p < clients % processes),
                                      p * 100, deadline, results)) for p in range(processes)]
    for child in children:
        child.start()
    answers = [a for _ in children for a in results.get()]
    for child in children:
        child.join()
    start = deadline - seconds  # count only the steady window
    return [a for a in answers if a[0] >= start]


# -- the run ---------------------------------------------------------------------------------
@dataclass
class Phase:
    name: str
    clients: int
    seconds: float
    answers: list[tuple]
    memory: list[dict]
    checks: dict = field(default_factory=dict)


def summarise(phase: Phase) -> list:
    latency = Latency([a[1] for a in phase.answers if a[2] == 200])
    errors = sum(1 for a in phase.answers if a[2] != 200)
    server_errors = sum(1 for a in phase.answers if a[2] >= 500 or a[2] == 0)
    rss = " / ".join(f"{m['rss']:.0f}" for m in phase.memory)
    return [phase.name, phase.clients, phase.seconds, len(phase.answers), len(phase.answers) / phase.seconds,
            latency.p50, latency.p95, latency.p99, errors, server_errors, rss]


def load_queries(url_post, count: int) -> tuple[list[str], list[str], str]:
    """Queries the server answers on the fast path, the tools they return (disable targets), and the
    path's name. A catalog without a calibrated gate has no fast path (auto runs hybrid until its
    calibration finds one): then the load is the semantic path's, and the tables say so."""
    from bench import catalogs

    found: dict[str, tuple[list[str], list[str]]] = {"fast path": ([], []), "semantic path": ([], [])}
    for q in catalogs.speed_queries(count * 6):
        answer = url_post({"query": q, "strategy": "auto"})
        if answer.status != 200:
            continue
        fast = answer.body["strategy"]["used"] == "bm25" and not answer.body["strategy"]["fallback"]
        queries, returned = found["fast path" if fast else "semantic path"]
        if len(queries) < count:
            queries.append(q)
            returned += [m["name"] for m in answer.body["matches"] if not m.get("core")]
        if len(found["fast path"][0]) >= count:
            break
    path = "fast path" if found["fast path"][0] else "semantic path"
    queries, returned = found[path]
    return queries, list(dict.fromkeys(returned)), path


class Admin:
    """One catalog change a second through the ORM, as the admin makes them."""

    def __init__(self, disable_targets: list[str]) -> None:
        self.targets = list(disable_targets)
        self.edited: dict[str, str] = {}  # tool -> its latest description
        self.added: dict[str, str] = {}
        self.disabled: list[tuple[str, float]] = []  # (tool, wall time the change committed)
        self.failures: list[str] = []
        self.step = 0

    def change(self) -> None:
        from django.db import transaction

        from toolcatalog.models import Tool
        from toolcatalog.services import save_validated

        k = self.step
        self.step += 1
        phrase = f"{COLOURS[k % len(COLOURS)]} {THINGS[k % len(THINGS)]} number {k}"
        try:
            with transaction.atomic():
                if k % 3 == 0:
                    tool = Tool.objects.filter(enabled=True).exclude(name__in=self.targets).order_by("pk")[k // 3]
                    tool.description = f"Schedule a {phrase} for the customer and confirm it by e-mail."
                    save_validated(tool)
                    self.edited[tool.name] = tool.description
                elif k % 3 == 1:
                    tool = Tool(name=f"bench_added_{k}", description=f"Book a {phrase} and send the receipt.",
                                parameters={"type": "object", "properties": {
                                    "when": {"type": "string", "description": "Date and time of the booking."}}})
                    save_validated(tool)
                    self.added[tool.name] = tool.description
                elif self.targets:
                    name = self.targets.pop(0)
                    tool = Tool.objects.get(name=name)
                    tool.enabled = False
                    save_validated(tool)
            if k % 3 == 2 and tool is not None:
                self.disabled.append((tool.name, time.time()))  # after the commit: visible from now on
        except Exception as exc:  # noqa: BLE001 - a failed change is a finding, not a crash
            self.failures.append(f"{k}: {exc!r}")

    def run(self, seconds: float) -> None:
        start = time.time()
        while time.time() - start < seconds:
            self.change()
            time.sleep(max(0.0, start + self.step - time.time()))


def verify(admin: Admin, answers: list[tuple], post_route, timeout: float = 300.0) -> dict:
    from toolcatalog.models import EmbeddingStatus, Tool

    deadline = time.time() + timeout
    while Tool.objects.filter(enabled=True).exclude(embedding_status=EmbeddingStatus.READY).exists():
        if time.time() > deadline:
            break
        time.sleep(1.0)
    pending = Tool.objects.filter(enabled=True).exclude(embedding_status=EmbeddingStatus.READY).count()
    lost = [n for n, d in {**admin.edited, **admin.added}.items()
            if not Tool.objects.filter(name=n, description=d, enabled=True).exists()]
    lost += [n for n, _ in admin.disabled if Tool.objects.filter(name=n, enabled=True).exists()]
    disabled_at = dict(admin.disabled)
    leaks = sum(1 for sent, _, status, names in answers
                for n in names if n in disabled_at and sent > disabled_at[n])
    routed = 0
    for name, description in {**admin.edited, **admin.added}.items():
        answer = post_route({"query": description, "strategy": "vector", "limit": 10, "explain": True})
        if answer.status == 200 and any(m["name"] == name and (m.get("semantic_score") or 0) > 0
                                        for m in answer.body["matches"]):
            routed += 1
    changes = len(admin.edited) + len(admin.added) + len(admin.disabled)
    return {"changes": changes, "edited": len(admin.edited), "added": len(admin.added),
            "disabled": len(admin.disabled), "failed changes": len(admin.failures), "lost": len(lost),
            "pending embeddings": pending, "disabled tool returned after its change": leaks,
            "routed once embedded": f"{routed}/{len(admin.edited) + len(admin.added)}",
            "failures": admin.failures[:3]}


def start_profiler(pid: int, seconds: float, name: str) -> tuple[subprocess.Popen, Path] | None:
    """py-spy on one web worker for `seconds` (raw collapsed stacks), if py-spy is installed."""
    py_spy = Path(sys.executable).with_name("py-spy")
    if not py_spy.exists():
        return None
    out = LOG_DIR / f"profile-{name}.txt"
    process = subprocess.Popen([str(py_spy), "record", "--pid", str(pid), "--duration", str(int(seconds)),
                                "--rate", "50", "--format", "raw", "--output", str(out), "--nonblocking"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return process, out


PROJECT_PACKAGES = {"routing", "api", "toolcatalog", "toolrouter"}


def profile_summary(path: Path, top: int = 22) -> list[tuple[str, float]]:
    """Inclusive share of samples per function of the project (and a few library hot spots)."""
    counts: dict[str, int] = {}
    total = 0
    for line in path.read_text().splitlines():
        stack, _, n = line.rpartition(" ")
        if not n.isdigit():
            continue
        total += int(n)
        seen = set()
        for frame in stack.split(";"):
            # frames look like "function (path/file.py:line)"
            func, _, where = frame.partition(" (")
            filename = where.split(":")[0]
            # py-spy names files relative to their sys.path entry: ours start with a package of ours
            project = filename.split("/")[0] in PROJECT_PACKAGES
            hot = filename.startswith(("psycopg/cursor", "redis/client", "django/core/handlers/wsgi"))
            if not (project or hot):
                continue
            label = f"{func} ({filename})"
            if label not in seen:
                seen.add(label)
                counts[label] = counts.get(label, 0) + int(n)
    ranked = sorted(counts.items(), key=lambda kv: -kv[1])[:top]
    return [(label, 100.0 * c / total) for label, c in ranked] if total else []


def start_celery_worker() -> subprocess.Popen:
    worker = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "toolrouter", "worker", "--concurrency", "1", "--loglevel", "WARNING",
         "--without-heartbeat", "--without-gossip", "--without-mingle"],
        cwd=ROOT, env=os.environ.copy(), stdout=open(LOG_DIR / "celery-load.log", "ab"),
        stderr=subprocess.STDOUT)
    from toolrouter.celery import app

    deadline = time.time() + 120
    while not app.control.ping(timeout=1.0):
        if time.time() > deadline or worker.poll() is not None:
            raise RuntimeError("the Celery worker did not come up; see celery-load.log beside the results")
        time.sleep(0.5)
    return worker


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--clients", default="8,32")
    parser.add_argument("--edit-clients", type=int, default=32)
    parser.add_argument("--tools", type=int, default=1_000)
    parser.add_argument("--tiny", action="store_true", help="CI mode: 100 tools, a few seconds")
    parser.add_argument("--profile", action="store_true", help="py-spy one web worker during the 32-client phases")
    parser.add_argument("--summarise-profiles", action="store_true",
                        help="only rebuild the profile tables of the last run from its raw py-spy files")
    add_data_dir_argument(parser)
    args = parser.parse_args()
    use_data_dir(args)
    if args.summarise_profiles:
        return resummarise()
    if args.tiny:
        args.seconds, args.tools, args.clients, args.edit_clients = 4.0, 100, "2", 2

    from bench import catalogs
    from bench.embedder import Embedder
    from bench.server import Gunicorn, api_key, load_catalog, post, warm
    from bench.throwaway import throwaway_services

    LOG_DIR.mkdir(parents=True, exist_ok=True)
    phases: list[Phase] = []
    # The tiny (CI) run has its own database, so a test run never collides with a `make bench`.
    database, redis_db = ("toolrouter_bench_load_tiny", "8") if args.tiny else ("toolrouter_bench_load", "13")
    with throwaway_services(database, redis_db=redis_db):
        from toolcatalog.embeddings import get_provider

        document = catalogs.generate(args.tools)
        load_catalog(document, catalogs.vectors_for(document, Embedder()), get_provider().model_id)
        key = api_key()
        with Gunicorn(workers=2, log_name="load") as server:
            post_route = lambda body: post(server.url("/api/v1/route"), key, body)  # noqa: E731
            warm(server, key, catalogs.speed_queries(40)[20:])
            queries, targets, path = load_queries(post_route, 10 if args.tiny else 100)
            profiles: dict[str, list] = {}
            for clients in (int(c) for c in args.clients.split(",")):
                profiler = start_profiler(server.worker_pids()[0], min(30, args.seconds), f"load-{clients}") \
                    if args.profile and clients == max(int(c) for c in args.clients.split(",")) else None
                answers = run_load(server.port, key, queries, clients, args.seconds)
                if profiler:
                    profiler[0].wait()
                    profiles[f"{path}, {clients} clients"] = profile_summary(profiler[1])
                phases.append(Phase(f"{path}, {clients} clients", clients, args.seconds, answers, server.memory()))
                print(summarise(phases[-1]), flush=True)
            worker = start_celery_worker()
            try:
                admin = Admin(targets)
                editor = threading.Thread(target=admin.run, args=(args.seconds,))
                editor.start()  # the thread keeps its own database connection
                profiler = start_profiler(server.worker_pids()[0], min(30, args.seconds), "edits") \
                    if args.profile else None
                answers = run_load(server.port, key, queries, args.edit_clients, args.seconds)
                editor.join()
                if profiler:
                    profiler[0].wait()
                    profiles["with an admin change every second"] = profile_summary(profiler[1])
                phase = Phase(f"{path} + an admin change every second, {args.edit_clients} clients",
                              args.edit_clients, args.seconds, answers, server.memory())
                phase.checks = verify(admin, answers, post_route)
                phases.append(phase)
                print(summarise(phase), phase.checks, flush=True)
            finally:
                worker.terminate()
                worker.wait(timeout=60)
    out = tables(phases, args.tools, len(queries), path) + profile_tables(profiles)
    print_tables(out)
    save_results("load-tiny" if args.tiny else "load", out)


def tables(phases: list[Phase], tools: int, queries: int, path: str) -> list[Table]:
    load = Table(f"HTTP load, {tools:,} tools, gunicorn 2 sync workers, Python load generator on the same 2 cores",
                 ["phase", "clients", "seconds", "requests", "requests/s", "p50 ms", "p95 ms", "p99 ms",
                  "errors", "5xx / no answer", "worker RSS MB at end"])
    for phase in phases:
        load.add(*summarise(phase))
    how = ("the `auto` fast path" if path == "fast path" else
           "the `auto` semantic path: this catalog has no evidence to calibrate a fast-path gate from, so `auto` "
           "runs hybrid; the queries repeat, so after its first request each query's vector comes from the "
           "query-embedding cache, as a repeated request's does in production")
    load.notes.append(f"{queries} distinct queries, all answered on {how} (checked over HTTP beforehand); each "
                      "client sends its next request when the last one is answered.")
    load.notes.append("Target: >= 300 requests/s at 32 clients with 0 errors.")
    checks = Table("Edits during the load", ["check", "result"])
    for phase in phases:
        for name, value in phase.checks.items():
            if name != "failures":
                checks.add(name, value)
        if phase.checks.get("failures"):
            checks.notes.append("first failed changes: " + "; ".join(phase.checks["failures"]))
    checks.notes.append("A change a second in turn: edit a description, add a tool, disable a tool the load's "
                        "queries return. 'disabled tool returned' counts answers to requests sent after the "
                        "disabling committed that still named the tool (must be 0). 'routed once embedded': "
                        "a `vector` request for the new text finds the tool with a semantic score.")
    return [load, checks]


def load_path(load_table: dict) -> str:
    """The path a saved load table's requests took: its phases are named "<path>, <n> clients"."""
    rows = load_table["rows"]
    return rows[0][0].split(",")[0] if rows else "fast path"


def resummarise() -> None:
    from bench.common import load_results

    last = load_results("load")
    path = load_path(last["tables"][0])
    files = {f"{path}, 32 clients": "profile-load-32.txt", "with an admin change every second": "profile-edits.txt"}
    profiles = {phase: profile_summary(LOG_DIR / name) for phase, name in files.items() if (LOG_DIR / name).exists()}
    kept = [Table(**t) for t in last["tables"] if not t["title"].startswith("py-spy")]
    out = kept + profile_tables(profiles)
    print_tables(out)
    save_results("load", out, command=last["command"] + ", profile tables re-summarised by --summarise-profiles")


def profile_tables(profiles: dict[str, list]) -> list[Table]:
    out = []
    for phase, rows in profiles.items():
        table = Table(f"py-spy, one web worker, {phase}: share of samples inside each function (inclusive)",
                      ["function", "% of samples"])
        for label, share in rows:
            table.add(label, share)
        table.notes.append("Sampled at 50 Hz for up to 30 s with `py-spy record --nonblocking`; idle time "
                           "(waiting in accept/read) counts in the total.")
        out.append(table)
    return out


if __name__ == "__main__":
    main()
