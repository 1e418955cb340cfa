"""`manage.py evaluate` ranks core tools where their relevance puts them.

The route endpoint adds core tools after its ranking to every answer; a benchmark whose catalog
marks a tool core would otherwise find it last on every line, past `--limit`, and the figures
would blame the ranking.
"""
import json
from pathlib import Path

from django.core.management import call_command

CATALOG = {
    "format": "toolcatalog/v1",
    "tools": [
        {"name": "get_weather", "description": "Current weather and forecast for a city", "core": True},
        {"name": "send_email", "description": "Send an email message to a recipient", "core": True},
        {"name": "play_music", "description": "Play a song, an album or a playlist"},
        {"name": "get_forecast_history", "description": "Past temperatures recorded in a city"},
        {"name": "translate_text", "description": "Translate text between languages"},
    ],
}
QUERIES = [
    {"query": "what is the weather forecast in Paris today", "expected": ["get_weather"]},
    {"query": "play the album Kind of Blue", "expected": ["play_music"]},
]


def test_a_core_tool_is_ranked_first_when_the_request_is_about_it(tmp_path: Path, capsys) -> None:
    (tmp_path / "catalog.json").write_text(json.dumps(CATALOG))
    (tmp_path / "queries.jsonl").write_text("\n".join(json.dumps(q) for q in QUERIES) + "\n")
    call_command("evaluate", str(tmp_path / "catalog.json"), str(tmp_path / "queries.jsonl"),
                 "--ranked-out", str(tmp_path / "ranked.jsonl"), "--limit", "3")
    summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    lines = [json.loads(line)["ranked"] for line in (tmp_path / "ranked.jsonl").read_text().splitlines()]
    assert lines[0][0] == "get_weather"
    assert lines[1][0] == "play_music"
    assert [len(ranked) for ranked in lines] == [3, 3]  # core tools are not added past the limit
    assert summary["recall@1"] == 1.0
