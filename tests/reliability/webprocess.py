"""A real gunicorn web process for the fault tests, and a small HTTP client that never raises."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from tests.support.worker import ARTIFACTS, wait_for
from toolrouter.devservices import free_port

PROJECT_DIR = Path(__file__).resolve().parents[2]


@dataclass
class Answer:
    status: int  # 0: no HTTP answer at all (refused, reset, timed out)
    content_type: str
    text: str
    seconds: float

    def json(self) -> dict:
        return json.loads(self.text)

    @property
    def is_json(self) -> bool:
        return self.content_type.startswith("application/json")


def call(url: str, key: str | None = None, body: dict | None = None, timeout: float = 30.0) -> Answer:
    headers = {"Content-Type": "application/json"}
    if key:
        headers["Authorization"] = f"Bearer {key}"
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, headers=headers, method="POST" if body is not None else "GET")
    started = time.perf_counter()
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return Answer(response.status, response.headers.get("Content-Type", ""), response.read().decode(),
                          time.perf_counter() - started)
    except urllib.error.HTTPError as error:
        return Answer(error.code, error.headers.get("Content-Type", ""), error.read().decode(),
                      time.perf_counter() - started)
    except (urllib.error.URLError, OSError) as error:
        return Answer(0, "", str(error), time.perf_counter() - started)


class WebProcess:
    """`gunicorn toolrouter.wsgi` with one sync worker, so one process holds the state under test."""

    def __init__(self, env: dict[str, str], name: str) -> None:
        self.port = free_port()
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        self.log_path = ARTIFACTS / f"gunicorn-{name}.log"
        self.process = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "toolrouter.wsgi:application", "--bind", f"127.0.0.1:{self.port}",
             "--workers", "1", "--timeout", "60", "--graceful-timeout", "20"],
            cwd=PROJECT_DIR, env={**os.environ, **env}, stdout=open(self.log_path, "ab"), stderr=subprocess.STDOUT,
        )
        if not wait_for(lambda: call(self.url("/healthz"), timeout=2).status == 200, timeout=60):
            self.stop()
            raise RuntimeError(f"gunicorn did not come up; see {self.log_path}")
        self.worker_pids = self.current_worker_pids()

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def current_worker_pids(self) -> set[int]:
        """The worker processes' ids: unchanged means the web process was never restarted."""
        children = Path(f"/proc/{self.process.pid}/task/{self.process.pid}/children")
        return {int(pid) for pid in children.read_text().split()} if children.exists() else set()

    def stop(self) -> None:
        """SIGTERM, as an orchestrator stops it: workers exit cleanly and run their exit hooks."""
        if self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=40)
