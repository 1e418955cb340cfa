"""PostgreSQL really stopped and started again under a gunicorn process serving a private
database: while it is down every answer is a JSON 503 (or a route from the in-process index),
never HTML, a 500 or a hang; once it is back the next requests succeed, with no restart."""
from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from tests.support.catalog import DEMO_CATALOG
from tests.support.worker import wait_for
from toolrouter.devservices import EmbeddedPostgres

from .faults import record_fault
from .webprocess import PROJECT_DIR, Answer, WebProcess, call

ROUTE = {"query": "play some jazz", "strategy": "bm25"}


def manage(env: dict[str, str], *args: str) -> str:
    result = subprocess.run([sys.executable, "manage.py", *args], cwd=PROJECT_DIR, env=env,
                            capture_output=True, text=True, timeout=180)
    assert result.returncode == 0, result.stderr[-2000:]
    return result.stdout


def start_on_same_port(postgres: EmbeddedPostgres) -> None:
    """EmbeddedPostgres.start picks a free port; a restart must come back where clients look."""
    subprocess.run(
        [str(postgres.bin_dir / "pg_ctl"), "-D", str(postgres.data_dir), "-w", "-t", "60",
         "-l", str(postgres.data_dir / "server.log"), "-o", f"-h 127.0.0.1 -p {postgres.port} -k ''", "start"],
        check=True, stdout=subprocess.DEVNULL, **postgres._run_as(),
    )
    postgres.started_here = True


@pytest.fixture
def private_postgres(tmp_path: Path):
    postgres = EmbeddedPostgres(data_dir=tmp_path / "pg")
    postgres.start()
    try:
        yield postgres
    finally:
        postgres.stop()


class Prober(threading.Thread):
    """Routes without pause, as agents would, recording every answer."""

    def __init__(self, url: str, key: str) -> None:
        super().__init__(daemon=True)
        self.url, self.key = url, key
        self.answers: list[tuple[float, Answer]] = []
        self.running = True

    def run(self) -> None:
        while self.running:
            self.answers.append((time.monotonic(), call(self.url, self.key, ROUTE, timeout=30)))
            time.sleep(0.05)


def test_gunicorn_answers_cleanly_through_a_postgres_restart(private_postgres, private_redis) -> None:
    env = {"DATABASE_URL": private_postgres.url, "REDIS_URL": private_redis.url}
    subprocess_env = {**os.environ, **env}
    manage(subprocess_env, "migrate", "--no-input", "-v", "0")
    manage(subprocess_env, "import_catalog", str(DEMO_CATALOG))
    key = manage(subprocess_env, "create_api_key", "pg-fault-agent").strip().splitlines()[-1]
    web = WebProcess(env, "postgres-fault")
    prober = Prober(web.url("/api/v1/route"), key)
    try:
        assert call(web.url("/api/v1/route"), key, ROUTE).status == 200  # the in-process index is built
        prober.start()
        time.sleep(0.5)
        stopped_at = time.monotonic()
        private_postgres.stop()
        time.sleep(2.0)
        ready = call(web.url("/readyz"))
        assert ready.status == 503 and ready.is_json and ready.json()["checks"]["database"]["ok"] is False
        start_on_same_port(private_postgres)
        restarted_at = time.monotonic()
        assert wait_for(lambda: any(t > restarted_at and a.status == 200 for t, a in prober.answers), timeout=30)
        recovered = next(t for t, a in prober.answers if t > restarted_at and a.status == 200) - restarted_at
        time.sleep(0.5)
        assert web.current_worker_pids() == web.worker_pids  # served by the same process throughout
    finally:
        prober.running = False
        prober.join(timeout=35)
        web.stop()

    outage = [a for t, a in prober.answers if t >= stopped_at]
    assert outage, "the prober made no request during the outage"
    for answer in outage:
        assert answer.status in (200, 503), (answer.status, answer.text[:300])
        assert answer.is_json and "Traceback" not in answer.text, answer.text[:300]
        assert answer.seconds < 10, answer.seconds  # no request hung on the dead database
    refused = [a for a in outage if a.status == 503]
    assert all(a.json()["error"] == "database_unavailable" for a in refused)
    assert stayed_up_after_recovery(prober)
    record_fault("PostgreSQL stopped and restarted (gunicorn process)",
                 f"{len(refused)} of {len(outage)} requests during the outage: JSON 503 database_unavailable "
                 f"(slowest {max(a.seconds for a in outage) * 1000:.0f} ms), the rest 200; /readyz 503; no HTML, no 500",
                 "nothing (route requests write no catalog data; refused ones are retryable 503s)",
                 f"{recovered * 1000:.0f} ms after PostgreSQL accepted connections again, same process")


def stayed_up_after_recovery(prober: Prober) -> bool:
    """Once the first success after the restart came, every later answer succeeded too."""
    statuses = [a.status for _, a in prober.answers]
    last_failure = max((i for i, s in enumerate(statuses) if s != 200), default=-1)
    return last_failure < len(statuses) - 1
