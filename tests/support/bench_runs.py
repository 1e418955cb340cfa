"""The benchmark scripts' tiny runs, in the background of the test session.

They are CPU work in subprocesses of their own (own throw-away databases, own Redis databases)
and need nothing of the tests' database. Run one after another on a background thread from the
start of the session, they use the core the rest of the suite leaves idle; tests/bench/ waits
for each result and checks it. Each script's torch runs on one thread, so it takes one core.
"""
from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TINY_DATA = ROOT / "bench" / "data" / "tiny"  # in the repository: the tests never read ../shared
SCRIPTS = ("quality", "robustness", "speed", "serving", "load", "bench_local_model", "bench_embedding", "replay_learning",
           "catalog_adaptation")
TIMEOUT_SECONDS = 900


def bench_env(results_dir: Path) -> dict[str, str]:
    """Our environment less pytest's markers: with PYTEST_VERSION set, the settings would put the
    script on the tests' Redis database instead of its own throw-away one."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    return {**env, "TOOLROUTER_BENCH_RESULTS": str(results_dir), "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


def scripts_for(test_names: list[str]) -> tuple[str, ...]:
    """The scripts the selected tests of tests/bench/ read (the report reads them all)."""
    if any(name.startswith("test_report") for name in test_names):
        return SCRIPTS
    return tuple(name for name in SCRIPTS if f"test_{name}_tables" in test_names)


class BenchRuns:
    def __init__(self, results_dir: Path, scripts: tuple[str, ...] = SCRIPTS) -> None:
        self.results_dir = results_dir
        self.scripts = scripts
        self._done: dict[str, threading.Event] = {name: threading.Event() for name in scripts}
        self._results: dict[str, subprocess.CompletedProcess[str]] = {}
        self._thread = threading.Thread(target=self._run_all, name="bench-runs", daemon=True)

    def start(self) -> BenchRuns:
        self._thread.start()
        return self

    def _run_all(self) -> None:
        for name in self.scripts:
            try:
                self._results[name] = subprocess.run(
                    [sys.executable, f"bench/{name}.py", "--tiny", "--data-dir", str(TINY_DATA)],
                    cwd=ROOT, env=bench_env(self.results_dir), capture_output=True, text=True,
                    timeout=TIMEOUT_SECONDS)
            except subprocess.TimeoutExpired as exc:
                self._results[name] = subprocess.CompletedProcess(exc.cmd, -1, "", f"timed out: {exc}")
            finally:
                self._done[name].set()

    def result(self, name: str) -> subprocess.CompletedProcess[str]:
        """The script's finished run (waits for it)."""
        self._done[name].wait(TIMEOUT_SECONDS * len(self.scripts))
        return self._results[name]

    def wait_all(self) -> None:
        for name in self.scripts:
            self._done[name].wait(TIMEOUT_SECONDS * len(self.scripts))
