"""`manage.py evaluate` on a tiny catalog whose metrics are computed by hand."""
import json
from pathlib import Path

import pytest
from django.core.management import call_command

from routing.evaluation import ndcg_at, recall_at, reciprocal_rank


def test_metric_functions_by_hand() -> None:
    ranked = ["a", "b", "c", "d"]
    assert recall_at(ranked, ["c"], 1) == 0.0
    assert recall_at(ranked, ["c"], 3) == 1.0
    assert recall_at(ranked, ["b", "z"], 5) == 0.5
    assert reciprocal_rank(ranked, ["c"]) == pytest.approx(1 / 3)
    assert reciprocal_rank(ranked, ["z"]) == 0.0
    # one relevant at rank 2: DCG = 1/log2(3), ideal = 1/log2(2) = 1
    assert ndcg_at(ranked, ["b"], 10) == pytest.approx(0.6309, abs=1e-4)


CATALOG = {
    "format": "toolcatalog/v1",
    "categories": [],
    "tools": [
        {"name": "play_music", "description": "Play a song, an album or a playlist"},
        {"name": "get_weather", "description": "Current weather and forecast for a city"},
        {"name": "send_email", "description": "Send an email message to a recipient"},
    ],
}
QUERIES = [
    {"query": "play the album Kind of Blue", "expected": ["play_music"]},
    {"query": "what is the weather forecast in Oslo", "expected": ["get_weather"]},
    {"query": "send an email to my boss", "expected": ["send_email"]},
    {"query": "zzzz qqqq", "expected": ["nonexistent_tool"]},
]


def test_evaluate_writes_ranked_lines_and_a_summary(tmp_path: Path, capsys) -> None:
    catalog = tmp_path / "catalog.json"
    queries = tmp_path / "queries.jsonl"
    ranked_out = tmp_path / "ranked.jsonl"
    catalog.write_text(json.dumps(CATALOG))
    queries.write_text("\n".join(json.dumps(q) for q in QUERIES) + "\n")
    call_command("evaluate", str(catalog), str(queries), "--ranked-out", str(ranked_out), "--limit", "3",
                 "--strategy", "bm25")
    summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    lines = [json.loads(line) for line in ranked_out.read_text().splitlines()]
    assert [line["query"] for line in lines] == [q["query"] for q in QUERIES]
    assert [line["ranked"][0] for line in lines[:3]] == ["play_music", "get_weather", "send_email"]
    # Three of four queries find their tool first; the fourth expects a tool that does not exist.
    assert summary["recall@1"] == 0.75 and summary["recall@3"] == 0.75
    assert summary["mrr"] == 0.75
    assert summary["ndcg@10"] == 0.75
    assert set(summary) >= {"recall@5", "recall@10", "p50_ms", "p95_ms", "tokens"}
    assert summary["tokens"]["all_tools"] > summary["tokens"]["selected_mean"] > 0


def _evaluate_every_query(tmp_path: Path) -> None:
    catalog = tmp_path / "catalog.json"
    queries = tmp_path / "queries.jsonl"
    catalog.write_text(json.dumps(CATALOG))
    queries.write_text("\n".join(json.dumps(q) for q in QUERIES) + "\n")
    call_command("evaluate", str(catalog), str(queries), "--ranked-out", str(tmp_path / "out.jsonl"))


def test_evaluate_prints_both_baselines_and_the_calibration_beside_the_engine(tmp_path: Path, capsys) -> None:
    _evaluate_every_query(tmp_path)
    captured = capsys.readouterr()
    summary = json.loads(captured.out.strip().splitlines()[-1])
    baselines = summary["baselines"]
    # the seeds' filter runs the packaged model; the engine's own model (adapted) is shown beside it
    assert set(baselines) == {"bm25 (name + description)", "cosine (name + description)",
                              "cosine (name + description), the engine's model"}
    # the three answerable queries are easy for every method; the fourth is unanswerable
    assert baselines["bm25 (name + description)"]["recall@1"] == 0.75
    assert summary["calibration"]["calibrated"] is False  # no hypothetical queries: the defaults
    assert "bm25 (name + description)" in captured.err and "calibration: defaults kept" in captured.err


def test_evaluate_prints_no_debug_lines_of_the_libraries_it_uses(tmp_path: Path, caplog) -> None:
    _evaluate_every_query(tmp_path)
    assert [r.getMessage() for r in caplog.records if r.name.startswith("bm25s")] == []


def test_evaluate_never_touches_the_live_catalog(tmp_path: Path, django_db_blocker) -> None:
    catalog = tmp_path / "catalog.json"
    queries = tmp_path / "queries.jsonl"
    catalog.write_text(json.dumps(CATALOG))
    queries.write_text(json.dumps(QUERIES[0]) + "\n")
    # Without database access at all, the command still runs.
    call_command("evaluate", str(catalog), str(queries), "--ranked-out", str(tmp_path / "out.jsonl"))
