"""The benchmark scripts in their tiny mode (100 tools, a few queries): they run and their tables are
well-formed. Nothing here looks at a timing: CI machines are too noisy for that."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.bench_runs import BenchRuns, bench_env

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def results_dir(bench_runs: BenchRuns) -> Path:
    return bench_runs.results_dir


def run_script(name: str, bench_runs: BenchRuns) -> dict:
    """The tiny run of bench/NAME.py (started at the session's start, see tests/support/bench_runs.py)."""
    done = bench_runs.result(name)
    assert done.returncode == 0, f"bench/{name}.py failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return json.loads((bench_runs.results_dir / f"{name}-tiny.json").read_text())


def assert_well_formed(result: dict, expected_tables: int) -> None:
    tables = result["tables"]
    assert len(tables) == expected_tables
    for table in tables:
        assert table["title"] and table["columns"], table
        assert table["rows"], f"{table['title']}: no rows"
        for row in table["rows"]:
            assert len(row) == len(table["columns"]), (table["title"], row)


def assert_markdown_tables(text: str) -> None:
    """Every markdown table has the same number of cells on each of its lines."""
    block: list[str] = []
    for line in [*text.splitlines(), ""]:
        if line.startswith("|"):
            block.append(line)
            continue
        if block:
            widths = {len(row.replace("\\|", "").split("|")) for row in block}
            assert len(widths) == 1, block
            assert set(block[1].strip("|")) <= {"-", "|"}, block[1]
            block = []


def test_quality_tables(bench_runs):
    result = run_script("quality", bench_runs)
    summary, latency, *per_set = result["tables"]
    assert_well_formed(result, 2 + len(summary["rows"]))  # the summary, the latency, then one table per data set
    assert latency["title"].startswith("Latency in the engine")
    names = [row[0] for row in summary["rows"]]
    assert any(n.startswith("bfcl-dev (") for n in names) and any(n.startswith("demo catalog") for n in names)
    for table in per_set:
        methods = [row[0] for row in table["rows"]]
        assert "engine `auto`" in methods
        assert any(m.startswith("baseline: BM25") for m in methods)
        assert any(m.startswith("baseline: cosine") for m in methods)


def test_speed_tables(bench_runs):
    result = run_script("speed", bench_runs)
    assert_well_formed(result, 3)


def test_serving_tables(bench_runs):
    result = run_script("serving", bench_runs)
    assert_well_formed(result, 4)
    assert result["tables"][3]["title"].startswith("Filter gateway")
    http = result["tables"][0]
    semantic = [row for row in http["rows"] if row[1] == "hybrid, fresh query embedding, again"]
    assert semantic
    engine_p50, apart, added = semantic[0][-3:]
    assert engine_p50 > 0  # the engine's p50 for the same requests in the benchmark process
    assert apart == semantic[0][3] - engine_p50
    # per request, the client's time less the worker's engine time: less than the whole request
    assert 0 < added < semantic[0][3]


def test_load_tables(bench_runs):
    result = run_script("load", bench_runs)
    assert_well_formed(result, 2)


def test_bench_local_model_tables(bench_runs):
    result = run_script("bench_local_model", bench_runs)
    assert_well_formed(result, 4)
    agreement = result["tables"][0]
    assert [row[0] for row in agreement["rows"]] == ["ONNX fp32", "ONNX int8", "torch bf16"]
    assert all(float(row[2]) > 0.99 for row in agreement["rows"])  # lowest cosine to torch
    memory = {row[0]: row for row in result["tables"][3]["rows"]}
    assert memory["ONNX int8"][2] == "no" and memory["torch"][2] == "yes"  # torch imported?


def test_bench_embedding_tables(bench_runs):
    result = run_script("bench_embedding", bench_runs)
    assert_well_formed(result, 1)
    assert [row[0] for row in result["tables"][0]["rows"]][-1] == "embedding"


def test_replay_learning_tables(bench_runs):
    result = run_script("replay_learning", bench_runs)
    assert_well_formed(result, 1)
    rows = {row[0]: dict(zip(result["tables"][0]["columns"], row)) for row in result["tables"][0]["rows"]}
    assert set(rows) == {"bfcl-dev", "demo catalog"}
    for row in rows.values():
        assert row["measured"] > 0 and row["learned from"] > row["measured"] / 2
        assert 0.0 <= row["engine before"] <= 1.0 and 0.0 <= row["engine after"] <= 1.0
        assert row["Δ"] == pytest.approx(row["engine after"] - row["engine before"], abs=1e-3)


def test_catalog_adaptation_tables(bench_runs):
    result = run_script("catalog_adaptation", bench_runs)
    assert_well_formed(result, 1)
    table = result["tables"][0]
    rows = {row[0]: dict(zip(table["columns"], row)) for row in table["rows"]}
    assert set(rows) == {"bfcl-dev"}
    row = rows["bfcl-dev"]
    assert row["learning pairs"] > 0 and row["measured"] > 0
    before, after = row["engine r@5, default model"], row["engine r@5, fine-tuned on the learning half"]
    assert 0.0 <= before <= 1.0 and 0.0 <= after <= 1.0
    assert row["Δ"] == pytest.approx(after - before, abs=1e-3)
    assert 0 < row["requests with no learned tool"] <= row["measured"]


def test_report_renders_every_table(bench_runs, results_dir, tmp_path):
    bench_runs.wait_all()
    output = tmp_path / "BENCHMARKS.md"
    env = bench_env(results_dir)
    done = subprocess.run([sys.executable, "bench/report.py", "--render-only", "--tiny", "--output", str(output)],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    text = output.read_text()
    assert text.startswith("# Benchmarks")
    assert "### Targets" in text
    assert_markdown_tables(text)


def test_robustness_tables(bench_runs):
    result = run_script("robustness", bench_runs)
    assert_well_formed(result, 1)
    table = result["tables"][0]
    perturbations = [row[table["columns"].index("perturbation")] for row in table["rows"]]
    assert perturbations == ["none", "opaque", "short", "boiler", "typo", "keyword", "paired"]  # the tiny data: one set
    for row in table["rows"]:
        cells = dict(zip(table["columns"], row))
        better = max(cells["BM25 r@5"], cells["cosine r@5"])
        assert cells["margin r@5 over the better baseline"] == pytest.approx(cells["engine r@5"] - better, abs=1e-3)
