"""A web process stopped by a plain SIGTERM while Redis is down writes the usage records it kept in
process to PostgreSQL before it exits: a server with no SIGTERM handler of its own (runserver
--noreload, a bare WSGI server) as well as gunicorn's sync and gthread workers."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

from api.services import create_api_key
from tests.support.catalog import load_demo_catalog
from tests.support.worker import ARTIFACTS, PROJECT_DIR, wait_for, worker_database_url
from toolrouter.devservices import free_port
from usage.models import RequestLog

from .webprocess import call

pytestmark = pytest.mark.django_db(transaction=True)
ROUTE = {"query": "play some jazz", "strategy": "hybrid"}
GUNICORN = [sys.executable, "-m", "gunicorn", "toolrouter.wsgi:application", "--workers", "1", "--timeout", "60",
            "--graceful-timeout", "20"]
SERVERS = {
    "runserver": lambda port: [sys.executable, "manage.py", "runserver", "--noreload", f"127.0.0.1:{port}"],
    "gunicorn-sync": lambda port: [*GUNICORN, "--bind", f"127.0.0.1:{port}"],
    "gunicorn-gthread": lambda port: [*GUNICORN, "--bind", f"127.0.0.1:{port}", "--worker-class", "gthread",
                                      "--threads", "4"],
}


def start_server(name: str, port: int) -> subprocess.Popen:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "DATABASE_URL": worker_database_url(), "REDIS_URL": "redis://127.0.0.1:1/0"}  # Redis down
    process = subprocess.Popen(SERVERS[name](port), cwd=PROJECT_DIR, env=env, stderr=subprocess.STDOUT,
                               stdout=open(ARTIFACTS / f"sigterm-{name}.log", "ab"))
    if not wait_for(lambda: call(f"http://127.0.0.1:{port}/healthz", timeout=2).status == 200, timeout=60):
        process.kill()
        raise RuntimeError(f"{name} did not come up; see {ARTIFACTS / f'sigterm-{name}.log'}")
    return process


@pytest.mark.parametrize("server", list(SERVERS))
def test_sigterm_writes_the_records_the_web_process_kept(server: str) -> None:
    load_demo_catalog(embed=False)
    _, key = create_api_key(f"sigterm-{server}")
    port = free_port()
    process = start_server(server, port)
    try:
        answers = [call(f"http://127.0.0.1:{port}/api/v1/route", key, ROUTE) for _ in range(4)]
        assert all(a.status == 200 for a in answers), answers
        assert call(f"http://127.0.0.1:{port}/readyz").json()["usage_log"]["buffered_in_process"] > 0
        process.terminate()
        process.wait(timeout=40)
    finally:
        process.kill()

    request_ids = {a.json()["request_id"] for a in answers}
    logged = set(RequestLog.objects.filter(request_id__in=request_ids).values_list("request_id", flat=True))
    assert logged == request_ids


SIGTERM_ACTION = """
import signal, django
django.setup()
print("default" if signal.getsignal(signal.SIGTERM) == signal.SIG_DFL else "handled")
import toolrouter.wsgi
print("default" if signal.getsignal(signal.SIGTERM) == signal.SIG_DFL else "handled")
"""


def test_only_loading_the_web_application_changes_sigterm() -> None:
    """Celery, pytest and management commands set Django up without the WSGI application: a SIGTERM
    there keeps its default action (a killed command is not a clean exit 0)."""
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "toolrouter.settings", "DATABASE_URL": worker_database_url()}
    shown = subprocess.run([sys.executable, "-c", SIGTERM_ACTION], cwd=PROJECT_DIR, env=env, check=True,
                           capture_output=True, text=True, timeout=120).stdout.split()
    assert shown == ["default", "handled"]
