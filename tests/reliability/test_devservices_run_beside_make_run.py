"""`devservices -- COMMAND` beside a running `make run` uses that run's servers and, when it ends,
leaves them and the file that finds them (services.env) alone: a later `manage.py` still finds them."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def test_a_command_that_started_nothing_leaves_services_env(tmp_path: Path) -> None:
    env_file = tmp_path / "services.env"
    env_file.write_text(f"DATABASE_URL={os.environ['DATABASE_URL']}\nREDIS_URL={os.environ['REDIS_URL']}\n")
    # The test's own servers are named in the environment, so the command starts none.
    subprocess.run([sys.executable, "-m", "toolrouter.devservices", "--", sys.executable, "-c", "pass"],
                   env={**os.environ, "TOOLROUTER_DATA_DIR": str(tmp_path)}, check=True, timeout=120)
    assert env_file.exists()
