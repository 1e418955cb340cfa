"""`manage.py evaluate` on files a person got slightly wrong: a clear error with the file and
line before anything is written, or, where the file is valid after all, the right figures."""
import json
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

CATALOG = {
    "format": "toolcatalog/v1",
    "tools": [
        {"name": "play_music", "description": "Play a song, an album or a playlist"},
        {"name": "get_weather", "description": "Current weather and forecast for a city"},
        {"name": "send_email", "description": "Send an email message to a recipient", "enabled": False},
    ],
}


def _run(tmp_path: Path, queries_text: str, catalog: dict | None = None, ranked_out: Path | None = None) -> Path:
    (tmp_path / "catalog.json").write_text(json.dumps(catalog or CATALOG))
    (tmp_path / "queries.jsonl").write_bytes(queries_text.encode("utf-8"))
    out = ranked_out or tmp_path / "ranked.jsonl"
    call_command("evaluate", str(tmp_path / "catalog.json"), str(tmp_path / "queries.jsonl"),
                 "--ranked-out", str(out), "--limit", "2")
    return out


def _summary(capsys) -> tuple[dict, str]:
    captured = capsys.readouterr()
    return json.loads(captured.out.strip().splitlines()[-1]), captured.err


@pytest.mark.parametrize("line,message", [
    ('{"query": "play jazz", "expected": 5}', '"expected" must be a list of tool names, found 5'),
    ('{"query": "play jazz", "expected": [["play_music"]]}', '"expected" must be a list of tool names'),
    ('{"query": "play jazz", "expected": {"play_music": 1}}', '"expected" must be a list of tool names'),
    ('{"query": "play jazz", "expected": ["play_music"]', "not JSON: Expecting ',' delimiter"),
])
def test_a_bad_line_stops_the_run_with_its_number_and_writes_nothing(tmp_path: Path, line: str, message: str) -> None:
    good = json.dumps({"query": "will it rain", "expected": ["get_weather"]})
    with pytest.raises(CommandError, match="queries.jsonl:2: ") as error:
        _run(tmp_path, f"{good}\n{line}\n", ranked_out=tmp_path / "runs" / "ranked.jsonl")
    assert message in str(error.value)
    assert not (tmp_path / "runs").exists()  # not even the folder it would have gone to


def test_a_catalog_with_nothing_to_rank_is_an_error_before_anything_is_written(tmp_path: Path) -> None:
    only_disabled = {"tools": [{**CATALOG["tools"][2]}]}
    with pytest.raises(CommandError, match="no tool to rank"):
        _run(tmp_path, json.dumps({"query": "email Bob", "expected": ["send_email"]}) + "\n",
             catalog={"format": "toolcatalog/v1", **only_disabled})
    assert not (tmp_path / "ranked.jsonl").exists()


def test_a_byte_order_mark_and_a_line_separator_inside_a_query_are_valid_json_lines(tmp_path: Path, capsys) -> None:
    lines = [{"query": "play the album\u2028Kind of Blue", "expected": ["play_music"]},
             {"query": "will it rain in Oslo\u0085tomorrow", "expected": ["get_weather"]}]
    out = _run(tmp_path, "\ufeff" + "\r\n".join(json.dumps(q, ensure_ascii=False) for q in lines))
    summary, _ = _summary(capsys)
    assert summary["queries"] == summary["scored"] == 2 and summary["recall@1"] == 1.0
    assert [json.loads(line)["query"] for line in out.read_text(encoding="utf-8").split("\n") if line] == \
        [q["query"] for q in lines]


def test_queries_without_an_answer_are_ranked_but_not_scored(tmp_path: Path, capsys) -> None:
    text = "\n".join(json.dumps(q) for q in [
        {"query": "play the album Kind of Blue", "expected": ["play_music"]},
        {"query": "what is on my calendar", "expected": []},
        {"query": "anything at all"},
    ])
    out = _run(tmp_path, text)
    summary, err = _summary(capsys)
    assert len(out.read_text().splitlines()) == 3
    assert summary["queries"] == 3 and summary["scored"] == 1 and summary["recall@1"] == 1.0
    assert "2 queries name no expected tool; they are ranked, not scored" in err


def test_disabled_and_unknown_expected_tools_are_named_on_stderr(tmp_path: Path, capsys) -> None:
    text = "\n".join(json.dumps(q) for q in [
        {"query": "email my boss", "expected": ["send_email"]},
        {"query": "book a table", "expected": ["book_table"]},
    ])
    _run(tmp_path, text)
    summary, err = _summary(capsys)
    assert "1 disabled tools are not ranked, as the route endpoint never offers them: 'send_email'" in err
    assert "2 expected tools are not in the catalog's ranked tools, so they count as misses: 'send_email', " \
           "'book_table'" in err
    assert summary["recall@10"] == 0.0


def test_the_ranked_file_may_go_to_a_folder_that_does_not_exist_yet(tmp_path: Path) -> None:
    out = _run(tmp_path, json.dumps({"query": "play jazz", "expected": ["play_music"]}) + "\n",
               ranked_out=tmp_path / "runs" / "today" / "ranked.jsonl")
    assert json.loads(out.read_text())["ranked"][0] == "play_music"


def test_a_limit_past_fifty_ranks_that_many_tools(tmp_path: Path) -> None:
    catalog = {"format": "toolcatalog/v1",
               "tools": [{"name": f"tool_{i}", "description": f"Tool number {i} of a large catalog"} for i in range(60)]}
    (tmp_path / "catalog.json").write_text(json.dumps(catalog))
    (tmp_path / "queries.jsonl").write_text(json.dumps({"query": "tool number 7", "expected": ["tool_7"]}) + "\n")
    call_command("evaluate", str(tmp_path / "catalog.json"), str(tmp_path / "queries.jsonl"),
                 "--ranked-out", str(tmp_path / "ranked.jsonl"), "--limit", "60")
    assert len(json.loads((tmp_path / "ranked.jsonl").read_text())["ranked"]) == 60
