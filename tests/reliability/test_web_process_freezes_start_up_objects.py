"""A web process loads every view when it starts and freezes what it loaded out of the cyclic
GC's reach (toolrouter/wsgi.py), so full collections no longer walk Django, DRF and every module
on the request path; garbage made before the freeze is collected, not frozen."""
from __future__ import annotations

import json
import subprocess
import sys

from tests.reliability.test_production_security_settings import PROJECT_DIR, production_env

PROBE = """
import gc, json, sys
import toolrouter.wsgi
print(json.dumps({"frozen": gc.get_freeze_count(), "views_loaded": "api.views_route" in sys.modules,
                  "tracked": len(gc.get_objects())}))
"""


def test_the_wsgi_module_freezes_the_loaded_application() -> None:
    done = subprocess.run([sys.executable, "-c", PROBE], cwd=PROJECT_DIR, env=production_env(),
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    state = json.loads(done.stdout.strip().splitlines()[-1])
    assert state["views_loaded"]
    assert state["frozen"] > 50_000
    assert state["tracked"] < state["frozen"] / 10
