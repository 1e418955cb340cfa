"""`evaluate` ranks a benchmark whose files escape half of a UTF-16 pair alone (scraped text cut
inside an emoji): the import refuses such JSON, but a benchmark must be read whatever it holds, so
the half is read as U+FFFD and said on stderr. Before, the model failed on the catalog's text."""
import json
from pathlib import Path

from django.core.management import call_command

CATALOG = ('{"format": "toolcatalog/v1", "tools": ['
           '{"name": "get_weather", "description": "Current weather \\ud83d and forecast for a city"},'
           '{"name": "play_music", "description": "Play a song, an album or a playlist"}]}')
QUERIES = ('{"query": "will it rain in Oslo \\ud800", "expected": ["get_weather"]}\n'
           '{"query": "play the album Kind of Blue", "expected": ["play_music"]}\n')


def test_the_halves_are_ranked_as_replacement_characters(tmp_path: Path, capsys) -> None:
    (tmp_path / "catalog.json").write_text(CATALOG)
    (tmp_path / "queries.jsonl").write_text(QUERIES)
    call_command("evaluate", str(tmp_path / "catalog.json"), str(tmp_path / "queries.jsonl"),
                 "--ranked-out", str(tmp_path / "ranked.jsonl"))
    captured = capsys.readouterr()
    ranked = [json.loads(line) for line in (tmp_path / "ranked.jsonl").read_text().splitlines()]
    assert [r["ranked"][0] for r in ranked] == ["get_weather", "play_music"]
    assert ranked[0]["query"] == "will it rain in Oslo \ufffd"
    assert json.loads(captured.out.strip().splitlines()[-1])["recall@1"] == 1.0
    assert "catalog.json: 1 texts hold half of a UTF-16 pair" in captured.err
    assert "queries.jsonl: 1 texts hold half of a UTF-16 pair" in captured.err
