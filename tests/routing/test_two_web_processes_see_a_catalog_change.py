"""Two web processes, each with its own in-process index, see the same catalog change."""
import json
import os
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from tests.support.catalog import load_demo_catalog
from tests.support.worker import ARTIFACTS, wait_for, worker_database_url
from toolcatalog.models import Tool
from toolrouter.devservices import free_port

pytestmark = pytest.mark.django_db(transaction=True)
PROJECT_DIR = Path(__file__).resolve().parents[2]


def start_server(port: int) -> subprocess.Popen:
    from django.conf import settings

    env = {**os.environ, "DATABASE_URL": worker_database_url(), "REDIS_URL": settings.REDIS_URL}
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "toolrouter.wsgi:application", "--bind", f"127.0.0.1:{port}",
         "--workers", "1", "--timeout", "60"],
        cwd=PROJECT_DIR, env=env, stdout=open(ARTIFACTS / f"gunicorn-{port}.log", "ab"), stderr=subprocess.STDOUT,
    )


def names(port: int, key: str) -> list[str]:
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/api/v1/route", method="POST",
        headers={"Authorization": f"Bearer {key}", "Content-Type": "application/json"},
        data=json.dumps({"query": "play some jazz", "strategy": "bm25", "limit": 5, "include_core": False}).encode(),
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        return [m["name"] for m in json.load(response)["matches"]]


def test_both_processes_stop_returning_a_disabled_tool() -> None:
    from api.services import create_api_key

    load_demo_catalog(embed=False)
    _, key = create_api_key("two-processes")
    ports = [free_port(), free_port()]
    servers = [start_server(port) for port in ports]
    try:
        for port in ports:
            assert wait_for(lambda: _healthy(port), timeout=60)
        assert all("play_music" in names(port, key) for port in ports)
        tool = Tool.objects.get(name="play_music")
        tool.enabled = False
        tool.save()
        assert all("play_music" not in names(port, key) for port in ports)
    finally:
        for server in servers:
            server.terminate()
            server.wait(timeout=20)


def _healthy(port: int) -> bool:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2) as response:
            return response.status == 200
    except (urllib.error.URLError, OSError):
        return False
