import os
import subprocess
import sys
from pathlib import Path

PROJECT_DIR = Path(__file__).resolve().parents[2]


def check(env: dict[str, str]) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("DJANGO_")}
    return subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "ERROR"],
        cwd=PROJECT_DIR, env={**clean, **env}, capture_output=True, text=True, timeout=120,
    )


def test_production_refuses_to_start_without_a_real_secret_key() -> None:
    result = check({"DJANGO_DEBUG": "0"})
    assert result.returncode != 0
    assert "DJANGO_SECRET_KEY" in result.stderr


def test_production_starts_with_a_real_secret_key() -> None:
    result = check({"DJANGO_DEBUG": "0", "DJANGO_SECRET_KEY": "k" * 20 + "x7#Lq!2v$9zR@pW4mN&8",
                    "DJANGO_ALLOWED_HOSTS": "router.example.com"})
    assert result.returncode == 0, result.stderr
