"""Documents that are not tool catalogs are refused as a whole, with a message for a person."""

from pathlib import Path

import pytest

from toolcatalog.interchange import InterchangeError, parse_catalog

FILES = Path(__file__).parent / "files"


def _error(data: object, **kwargs: object) -> str:
    with pytest.raises(InterchangeError) as excinfo:
        parse_catalog(data, **kwargs)
    assert excinfo.value.message == str(excinfo.value)
    return excinfo.value.message


def test_html_page() -> None:
    message = _error((FILES / "docs-page.html").read_bytes())
    assert "HTML" in message and "<!DOCTYPE html>" in message


def test_swagger_2_is_named_and_explained() -> None:
    message = _error((FILES / "petstore-swagger-2.0.yaml").read_text())
    assert "Swagger/OpenAPI 2.0" in message and "3.0 and 3.1" in message


def test_json_object_of_the_wrong_shape_lists_its_keys() -> None:
    message = _error((FILES / "package.json").read_text())
    assert "not a tool catalog" in message and "'dependencies'" in message


def test_openapi_without_paths_when_format_is_named() -> None:
    message = _error({"openapi": "3.0.3", "info": {"title": "x"}}, format="openapi")
    assert message.startswith("expected an OpenAPI document with 'openapi: 3.x' and 'paths'")
    assert "'info'" in message


def test_unknown_openapi_version() -> None:
    assert "openapi: '4.0.0'" in _error({"openapi": "4.0.0", "paths": {}})


def test_named_format_that_does_not_match_the_document() -> None:
    message = _error((FILES / "anthropic-tools.json").read_text(), format="openai")
    assert "imported as 'openai' but looks like 'anthropic'" in message


def test_named_format_with_wrong_top_level() -> None:
    assert "expected an OpenAI tool list" in _error({"data": []}, format="openai")
    assert "expected an MCP tools/list result" in _error({"result": 1}, format="mcp")
    assert "expected a toolcatalog/v1 document" in _error({"tools": "x"}, format="toolcatalog/v1")


def test_unknown_format_name() -> None:
    assert "supported formats" in _error([], format="langchain")


@pytest.mark.parametrize("text, fragment", [
    ("", "empty"),
    (b"\xff\xfe\x00garbage", "not UTF-8"),
    ('{"tools": [', "invalid JSON"),
    ("tools: [unclosed", "neither JSON nor YAML"),
])
def test_unreadable_text(text: str | bytes, fragment: str) -> None:
    assert fragment in _error(text)


def test_mcp_error_response() -> None:
    doc = {"jsonrpc": "2.0", "id": 3, "error": {"code": -32601, "message": "Method not found"}}
    assert "Method not found" in _error(doc)
