"""`manage.py evaluate` ranks every tool of a catalog in any format the import reads, under the
name the file gives it, even where the catalog itself would refuse the tool.

Hidden benchmarks come as OpenAI tool lists and BFCL's raw functions ("type": "dict") as well
as toolcatalog/v1; a tool lost to its spelling or to a field of the wrong type counts as a miss
that no ranking caused.
"""
import json
from pathlib import Path

from django.core.management import call_command

BFCL_RAW = [  # an OpenAI-shaped function list with BFCL's schemas
    {"name": "book_flight", "description": "Book a plane ticket between two airports",
     "parameters": {"type": "dict", "properties": {"destination": {"type": "string"}}}},
    {"name": "get_weather", "description": "Current weather and forecast for a city",
     "parameters": {"type": "dict", "properties": {"city": {"type": "string"}}}},
    {"name": "Send Message", "description": "Send a chat message to a colleague or a channel"},
    {"name": "Send_Message", "description": "Post a paper letter to a street address"},
    # the same description: only the parameters' words tell the two apart
    {"name": "calculate_a", "description": "Compute a value for the user",
     "parameters": {"type": "dict", "properties": {
         "radius": {"type": "float", "description": "Radius of the circle in centimetres"},
         "sides": {"type": "tuple", "items": {"type": "any"}, "description": "Unused"}}}},
    {"name": "calculate_b", "description": "Compute a value for the user",
     "parameters": {"type": "dict", "properties": {
         "principal": {"type": "int", "description": "Loan principal in dollars"}}}},
    {"name": "broken_schema", "description": "Convert a temperature to Fahrenheit", "parameters": "celsius"},
]
V1_WRONG_TYPES = {
    "format": "toolcatalog/v1",
    "tools": [
        {"name": "play_music", "description": "Play a song, an album or a playlist", "core": "true"},
        {"name": "translate_text", "description": "Translate text between languages",
         "hypothetical_queries": "say hello in French"},
        {"name": "get_weather", "description": "Current weather and forecast for a city"},
    ],
}


def _evaluate(tmp_path: Path, capsys, catalog, queries: list[dict]) -> tuple[list[list[str]], dict, str]:
    (tmp_path / "catalog.json").write_text(json.dumps(catalog))
    (tmp_path / "queries.jsonl").write_text("\n".join(json.dumps(q) for q in queries) + "\n")
    call_command("evaluate", str(tmp_path / "catalog.json"), str(tmp_path / "queries.jsonl"),
                 "--ranked-out", str(tmp_path / "ranked.jsonl"), "--limit", "5")
    captured = capsys.readouterr()
    lines = [json.loads(line)["ranked"] for line in (tmp_path / "ranked.jsonl").read_text().splitlines()]
    return lines, json.loads(captured.out.strip().splitlines()[-1]), captured.err


def test_bfcl_raw_functions_are_ranked_with_their_schemas_read_as_bfcls(tmp_path: Path, capsys) -> None:
    queries = [{"query": "book me a flight to Rome", "expected": ["book_flight"]},
               {"query": "will it rain in Oslo tomorrow", "expected": ["get_weather"]},
               {"query": "the circle's radius is 4 centimetres", "expected": ["calculate_a"]},
               {"query": "a loan principal of 5000 dollars", "expected": ["calculate_b"]},
               {"query": "convert 20 degrees to Fahrenheit", "expected": ["broken_schema"]}]
    lines, summary, err = _evaluate(tmp_path, capsys, BFCL_RAW, queries)
    assert [ranked[0] for ranked in lines] == [q["expected"][0] for q in queries]
    assert summary["recall@1"] == 1.0
    assert "tool 'calculate_a' ranked with its parameter types read as BFCL's" in err
    assert "tool 'broken_schema' ranked without its parameters: parameters must be a JSON object" in err


def test_two_names_that_would_become_one_stay_two_tools(tmp_path: Path, capsys) -> None:
    queries = [{"query": "message the team channel that the build is green", "expected": ["Send Message"]},
               {"query": "post a paper letter to my landlord's street address", "expected": ["Send_Message"]}]
    lines, summary, err = _evaluate(tmp_path, capsys, BFCL_RAW, queries)
    assert {"Send Message", "Send_Message"} <= set(lines[0])
    assert [ranked[0] for ranked in lines] == ["Send Message", "Send_Message"]
    assert summary["recall@1"] == 1.0
    assert "tool 'Send_Message' ranked as 'Send_Message_" in err and "skipped" not in err


def test_an_optional_field_of_the_wrong_type_takes_its_default(tmp_path: Path, capsys) -> None:
    queries = [{"query": "play the album Kind of Blue", "expected": ["play_music"]},
               {"query": "translate good morning into Spanish", "expected": ["translate_text"]}]
    lines, summary, err = _evaluate(tmp_path, capsys, V1_WRONG_TYPES, queries)
    assert [ranked[0] for ranked in lines] == ["play_music", "translate_text"]
    assert all(len(ranked) == 3 for ranked in lines)
    assert "tool 'play_music' ranked with the default core: core must be true or false" in err
    assert "tool 'translate_text' ranked with the default hypothetical_queries" in err
