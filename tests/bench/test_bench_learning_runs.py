"""bench/bench_learning.py (the #15 page-time figures) runs to its end on a small log: it is not in
the tiny runs of tests/support/bench_runs.py, and a renamed argument once broke its last step."""
import json
import subprocess
import sys
from pathlib import Path

from tests.support.bench_runs import ROOT, bench_env


def test_bench_learning_runs_on_a_small_log(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "bench/bench_learning.py", "--rows", "2000", "--repeats", "1"],
                          cwd=ROOT, env=bench_env(tmp_path), capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    rows = {row[0] for table in json.loads((tmp_path / "bench_learning.json").read_text())["tables"]
            for row in table["rows"]}
    assert {"the dashboard's learning card alone, 24h", "the dashboard's learning card alone, 30d"} <= rows
