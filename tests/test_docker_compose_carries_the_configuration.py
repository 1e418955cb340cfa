"""docker-compose.yml runs README's configuration: every variable of an optional `.env` reaches
the app containers, the file itself sets only what the stack decides (its servers, production
mode), never a model; the web serves proxied calls and streams as long as the proxy waits; and
the image ships no local environment or data. No Docker engine runs here: the files are read."""
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import yaml
from django.conf import settings

PROJECT_DIR = Path(__file__).resolve().parents[1]
APP_SERVICES = ("migrate", "web", "proxy", "worker", "beat")
# What the stack decides for itself; everything else comes from .env or settings.py's defaults.
STACK_VARIABLES = {"DATABASE_URL", "REDIS_URL", "DJANGO_DEBUG", "DJANGO_SECRET_KEY", "DJANGO_ALLOWED_HOSTS",
                   "DJANGO_SSL_REDIRECT", "EMBEDDING_THREADS"}


def services() -> dict[str, Any]:
    return yaml.safe_load((PROJECT_DIR / "docker-compose.yml").read_text())["services"]


def option(command: list[str], name: str) -> str:
    return command[command.index(name) + 1]


def test_every_app_container_reads_an_optional_env_file() -> None:
    for name in APP_SERVICES:
        assert services()[name]["env_file"] == [{"path": ".env", "required": False}], name


def test_the_compose_file_sets_only_the_stacks_own_variables() -> None:
    for name in APP_SERVICES:
        assert set(services()[name]["environment"]) <= STACK_VARIABLES, name


def test_an_empty_embedding_model_takes_the_providers_default() -> None:
    env = {**os.environ, "EMBEDDING_PROVIDER": "openai", "EMBEDDING_MODEL": "", "EMBEDDING_SEND_DIMENSIONS": ""}
    shown = subprocess.run(
        [sys.executable, "-c", "from toolrouter import settings; "
                               "print(settings.EMBEDDING_MODEL, settings.EMBEDDING_SEND_DIMENSIONS)"],
        cwd=PROJECT_DIR, env=env, capture_output=True, text=True, timeout=60, check=True)
    assert shown.stdout.split() == ["text-embedding-3-small", "auto"]


def test_the_proxy_service_serves_long_calls_side_by_side() -> None:
    command = services()["proxy"]["command"]
    assert option(command, "--worker-class") == "gthread"
    assert int(option(command, "--threads")) >= 4
    assert float(option(command, "--timeout")) > settings.PROXY_READ_TIMEOUT_SECONDS


def test_the_web_keeps_sync_workers_and_does_not_cut_a_proxied_call() -> None:
    """Short CPU-bound requests get a process each (threads made p99 under edits 2.5 times worse)."""
    command = services()["web"]["command"]
    assert "--worker-class" not in command and "--threads" not in command
    assert float(option(command, "--timeout")) > settings.PROXY_READ_TIMEOUT_SECONDS


def test_the_image_ships_no_local_environment_or_data() -> None:
    ignored = set((PROJECT_DIR / ".dockerignore").read_text().split())
    assert {".venv", ".data", ".git", ".env", "**/__pycache__"} <= ignored
