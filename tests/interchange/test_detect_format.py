"""detect_format recognises every supported shape, from dicts and from raw files."""

from pathlib import Path

import pytest

from toolcatalog.interchange import InterchangeError, detect_format, parse_catalog

FILES = Path(__file__).parent / "files"


@pytest.mark.parametrize("filename, expected", [
    ("petstore-3.0.yaml", "openapi"),
    ("bookshop-3.1.json", "openapi"),
    ("mcp-github-gitlab.json", "mcp"),
    ("mcp-filesystem-jsonrpc.json", "mcp"),
    ("anthropic-tools.json", "anthropic"),
    ("anthropic-messages-request.json", "anthropic"),
    ("openai-tools.json", "openai"),
    ("openai-legacy-functions.json", "openai"),
    ("openai-chat-request.json", "openai"),
    ("openai-partial.json", "openai"),
    ("toolcatalog-v1.json", "toolcatalog/v1"),
])
def test_detects_each_file(filename: str, expected: str) -> None:
    raw = (FILES / filename).read_bytes()
    assert detect_format(raw) == expected
    assert detect_format(raw.decode()) == expected


@pytest.mark.parametrize("document, expected", [
    ({"format": "toolcatalog/v1", "tools": []}, "toolcatalog/v1"),
    ({"categories": [], "tools": []}, "toolcatalog/v1"),
    ([{"name": "f", "parameters": {"type": "object"}}], "openai"),
    ([{"name": "f", "description": "functions that take no parameters"}], "openai"),
    ({"tools": [{"type": "function", "name": "f", "parameters": {}}]}, "openai"),
    ({"tools": [{"name": "f", "input_schema": {"type": "object"}}]}, "anthropic"),
    ([{"name": "f", "inputSchema": {"type": "object"}}], "mcp"),
    ({"serverInfo": {"name": "s"}, "tools": []}, "mcp"),
    ({"jsonrpc": "2.0", "id": 1, "result": {"tools": []}}, "mcp"),
    ({"openapi": "3.1.0", "info": {}, "paths": {}}, "openapi"),
])
def test_detects_minimal_documents(document: object, expected: str) -> None:
    assert detect_format(document) == expected


def test_majority_of_entries_decides_despite_a_stray_entry() -> None:
    tools = [{"name": "a", "input_schema": {}}, {"name": "b", "input_schema": {}}, {"name": "c", "parameters": {}}]
    assert detect_format(tools) == "anthropic"


@pytest.mark.parametrize("document, fragment", [
    ({"format": "toolcatalog/v2", "tools": []}, "unsupported catalog format 'toolcatalog/v2'"),
    ([], "empty list"),
    ([{"name": "a"}, {"title": "b", "description": "no name"}], "none of the entries"),
    ({"name": "f", "parameters": {"type": "object"}}, "single tool definition"),
    ("just a sentence", "plain text"),
])
def test_unrecognised_documents_raise(document: object, fragment: str) -> None:
    with pytest.raises(InterchangeError, match=fragment):
        detect_format(document)


@pytest.mark.parametrize("fmt", ["anthropic", "openai"])
def test_a_plain_name_and_description_list_imports_under_any_provider_format_named(fmt: str) -> None:
    parsed = parse_catalog([{"name": "ping", "description": "Check a host answers"}], format=fmt)
    assert [t["name"] for t in parsed.tools] == ["ping"] and parsed.rejected == []
