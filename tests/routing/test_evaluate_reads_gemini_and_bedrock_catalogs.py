"""`manage.py evaluate` ranks the tools of a benchmark catalog given as Gemini function
declarations or as a Bedrock Converse tool configuration, under the names the file gives them."""
import json
from pathlib import Path

import pytest
from django.core.management import call_command

FILES = Path(__file__).resolve().parents[1] / "interchange" / "files"
CASES = [  # catalog file, a query, the tool it asks for
    ("gemini-function-declarations.json", "book two seats for the 8pm showtime", "book_tickets"),
    ("bedrock-converse-request.json", "which shows does WKRP play on saturday", "station_schedule"),
]


@pytest.mark.parametrize("filename,query,expected", CASES)
def test_every_tool_of_the_file_is_ranked(tmp_path: Path, capsys, filename: str, query: str, expected: str) -> None:
    (tmp_path / "queries.jsonl").write_text(json.dumps({"query": query, "expected": [expected]}) + "\n")
    call_command("evaluate", str(FILES / filename), str(tmp_path / "queries.jsonl"),
                 "--ranked-out", str(tmp_path / "ranked.jsonl"), "--limit", "3")
    summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    [line] = (tmp_path / "ranked.jsonl").read_text().splitlines()
    assert json.loads(line)["ranked"][0] == expected
    assert summary["recall@1"] == 1.0
