"""Bedrock Converse tool configurations import as Bedrock (not as an OpenAI list whose every tool
was "missing name"), in each shape they come in; cache points are no tools."""
from pathlib import Path

import pytest

from toolcatalog.interchange import InterchangeError, detect_format, parse_catalog

FILES = Path(__file__).parent / "files"
SCHEMA = {"type": "object", "properties": {"sign": {"type": "string"}}, "required": ["sign"]}
TOP_SONG = {"toolSpec": {"name": "top_song", "description": "Most played song of a station",
                         "inputSchema": {"json": SCHEMA}}}


def core(catalog) -> list[tuple]:
    return [(t["name"], t["description"], t["parameters"]) for t in catalog.tools]


def test_a_tools_object_is_bedrock_and_imports_every_tool() -> None:
    document = {"tools": [TOP_SONG, {"cachePoint": {"type": "default"}}]}
    assert detect_format(document) == "bedrock"
    catalog = parse_catalog(document)
    assert catalog.format == "bedrock" and catalog.rejected == []
    assert core(catalog) == [("top_song", "Most played song of a station", SCHEMA)]
    assert catalog.tools[0]["source"] == "bedrock"


def test_a_whole_converse_request_gives_its_tool_config() -> None:
    catalog = parse_catalog((FILES / "bedrock-converse-request.json").read_text())
    assert catalog.format == "bedrock"
    assert [t["name"] for t in catalog.tools] == ["top_song", "station_schedule"]
    assert catalog.tools[1]["parameters"]["properties"]["day"]["enum"][0] == "mon"
    assert catalog.rejected == []  # the cache point is skipped, not rejected


@pytest.mark.parametrize("document", [{"toolConfig": {"tools": [TOP_SONG], "toolChoice": {"auto": {}}}}, [TOP_SONG]])
def test_the_tool_config_and_a_bare_list(document) -> None:
    assert core(parse_catalog(document)) == [("top_song", "Most played song of a station", SCHEMA)]


def test_entries_that_are_no_tool_spec_are_rejected_with_their_reason() -> None:
    document = {"tools": [TOP_SONG, 7, {"systemTool": {"name": "nova_grounding"}}, {"toolSpec": "top_song"},
                          {"toolSpec": {"name": "bad_schema", "inputSchema": SCHEMA}}]}
    catalog = parse_catalog(document)
    assert [t["name"] for t in catalog.tools] == ["top_song"]
    assert [(r.index, r.name) for r in catalog.rejected] == [(1, ""), (2, ""), (3, ""), (4, "bad_schema")]
    reasons = [r.reason for r in catalog.rejected]
    assert reasons[0] == "entry must be an object, found int"
    assert "system tool" in reasons[1] and "'toolSpec' must be an object" in reasons[2]
    assert "'json'" in reasons[3]


def test_a_bedrock_document_claimed_as_openai_is_refused() -> None:
    with pytest.raises(InterchangeError, match="looks like 'bedrock'"):
        parse_catalog({"tools": [TOP_SONG]}, format="openai")
