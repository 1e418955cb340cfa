"""`manage.py evaluate` measures every tool of the file under the name the file gives it.

Benchmarks spell names the catalog cannot hold (seal-dev has "requestFirst Aid Assistance") and
ship schemas the import refuses (BFCL's raw "type": "dict", read here in BFCL's dialect). The
queries' answers use the file's names, so the ranked file must too, and a tool refused for its
spelling must still be ranked: otherwise it counts as a miss that no ranking caused.
"""
import json
from pathlib import Path

from django.core.management import call_command

LONG_NAME = "send_the_weekly_report_" * 7  # 161 characters: longer than a catalog name may be
CATALOG = {
    "format": "toolcatalog/v1",
    "tools": [
        {"name": "Send Message", "description": "Send a chat message to a colleague or a team channel"},
        {"name": "天气预报", "description": "Weather forecast for a city: rain, temperature and wind"},
        {"name": LONG_NAME, "description": "Email the weekly sales report to the management team"},
        {"name": "book_flight", "description": "Book a plane ticket between two airports",
         "parameters": {"type": "dict", "properties": {"destination": {"type": "string"}}}},
        {"name": "play_music", "description": "Play a song, an album or a playlist"},
    ],
}
QUERIES = [
    {"query": "message the design team that the build is green", "expected": ["Send Message"]},
    {"query": "will it rain in Oslo tomorrow", "expected": ["天气预报"]},
    {"query": "email the weekly sales report to management", "expected": [LONG_NAME]},
    {"query": "book me a flight to Rome", "expected": ["book_flight"]},
    {"query": "zzzz qqqq", "expected": ["play_music"]},
]


def _evaluate(tmp_path: Path, capsys, limit: int) -> tuple[list[list[str]], dict, str]:
    catalog, queries, ranked_out = tmp_path / "catalog.json", tmp_path / "queries.jsonl", tmp_path / "ranked.jsonl"
    catalog.write_text(json.dumps(CATALOG, ensure_ascii=False), encoding="utf-8")
    queries.write_text("\n".join(json.dumps(q, ensure_ascii=False) for q in QUERIES) + "\n", encoding="utf-8")
    call_command("evaluate", str(catalog), str(queries), "--ranked-out", str(ranked_out), "--limit", str(limit))
    captured = capsys.readouterr()
    lines = [json.loads(line)["ranked"] for line in ranked_out.read_text(encoding="utf-8").splitlines()]
    return lines, json.loads(captured.out.strip().splitlines()[-1]), captured.err


def test_tools_are_ranked_under_the_names_the_file_gives_them(tmp_path: Path, capsys) -> None:
    lines, summary, err = _evaluate(tmp_path, capsys, limit=20)
    file_names = {t["name"] for t in CATALOG["tools"]}
    assert all(set(ranked) == file_names for ranked in lines)
    # each answerable request finds its tool first, whatever its spelling
    assert [ranked[0] for ranked in lines[:4]] == [q["expected"][0] for q in QUERIES[:4]]
    assert summary["recall@1"] >= 0.8
    assert "tool '天气预报' ranked as 'tool_" in err
    assert "tool 'Send Message' renamed to 'Send_Message'" in err


def test_a_schema_in_bfcls_dialect_is_read_as_json_schema(tmp_path: Path, capsys) -> None:
    lines, _, err = _evaluate(tmp_path, capsys, limit=20)
    assert lines[3][0] == "book_flight"
    assert "tool 'book_flight' ranked with its parameter types read as BFCL's" in err


def test_every_line_names_as_many_tools_as_the_limit_where_the_catalog_has_them(tmp_path: Path, capsys) -> None:
    # "zzzz qqqq" has no word and no meaning in common with any tool: the engine offers none,
    # and the line is completed in the engine's order for tools that score the same (by name)
    lines, _, _ = _evaluate(tmp_path, capsys, limit=20)
    assert [len(ranked) for ranked in lines] == [5] * len(QUERIES)
    lines, _, _ = _evaluate(tmp_path, capsys, limit=3)
    assert [len(ranked) for ranked in lines] == [3] * len(QUERIES)
