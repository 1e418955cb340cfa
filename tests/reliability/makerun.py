"""`make run` (devservices --serve) as a subprocess, on the test database and a Redis of the test's own,
and what is left of the process groups it started."""
from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.support.worker import ARTIFACTS, wait_for, worker_database_url
from toolcatalog.local_model import models_dir
from toolrouter.devservices import free_port

from .webprocess import PROJECT_DIR, call


def group_members(pgid: int) -> set[int]:
    """Processes (zombies aside) still in a process group."""
    members = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue  # exited while we looked
        if fields[0] != "Z" and int(fields[2]) == pgid:
            members.add(int(stat.parent.name))
    return members


def share_models(data_dir: Path) -> None:
    """`data_dir/models` is the models folder `make install` filled, as a link: each run's fresh data
    folder otherwise adapted and exported the local model again before coming up, which on an
    AVX2-only CPU (adaptation 225 s) took longer than a run is given to start."""
    models = data_dir / "models"
    if models.is_symlink():
        return
    if models.exists():  # a run of an older checkout left a folder of its own
        shutil.rmtree(models)
    models.symlink_to(models_dir(), target_is_directory=True)


def _ignore_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)


class MakeRun:
    """Started with SIGINT ignored, as `make run &` from a script or a shell without job control is."""

    def __init__(self, redis_url: str, name: str) -> None:
        self.port = free_port()
        data_dir = ARTIFACTS / f"make-run-{name}"
        data_dir.mkdir(parents=True, exist_ok=True)
        share_models(data_dir)
        self.log_path = ARTIFACTS / f"make-run-{name}.log"
        self.log_path.write_text("")
        env = {**os.environ, "DATABASE_URL": worker_database_url(), "REDIS_URL": redis_url,
               "TOOLROUTER_DATA_DIR": str(data_dir)}
        self.process = subprocess.Popen(
            [sys.executable, "-m", "toolrouter.devservices", "--serve", "--port", str(self.port)],
            cwd=PROJECT_DIR, env=env, stdout=open(self.log_path, "ab"), stderr=subprocess.STDOUT,
            start_new_session=True, preexec_fn=_ignore_sigint,
        )
        self.groups_seen: set[int] = set()
        if not wait_for(lambda: call(self.url("/healthz"), timeout=2).status == 200, timeout=120):
            self.stop()
            raise RuntimeError(f"make run did not come up; see {self.log_path}")
        self.child("celery"), self.child("runserver")  # the groups to look for leftovers in

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def log(self) -> str:
        return self.log_path.read_text()

    def child(self, word: str) -> int | None:
        """The process id of the supervisor's child whose command line has `word` (celery, runserver)."""
        children = Path(f"/proc/{self.process.pid}/task/{self.process.pid}/children")
        pids = children.read_text().split() if children.exists() else []
        for pid in pids:
            try:
                cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().decode()
            except OSError:
                continue
            if word in cmdline:
                self.groups_seen.add(int(pid))  # each child leads a process group of its own
                return int(pid)
        return None

    def stop(self, signum: int = signal.SIGINT) -> int:
        """As Ctrl-C does; anything the supervisor leaves behind is killed, after it was looked at."""
        if self.process.poll() is None:
            self.process.send_signal(signum)
            try:
                self.process.wait(timeout=90)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()
        return self.process.returncode

    def leftovers(self) -> set[int]:
        return {pid for group in self.groups_seen for pid in group_members(group)}

    def kill_leftovers(self) -> None:
        for group in self.groups_seen:
            if group_members(group):
                os.killpg(group, signal.SIGKILL)


@contextmanager
def make_run(redis_url: str, name: str) -> Iterator[MakeRun]:
    run = MakeRun(redis_url, name)
    try:
        yield run
    finally:
        run.stop()
        run.kill_leftovers()
