"""Gemini / Vertex AI function declarations import: every shape they come in, Gemini's Schema
(types in capitals, nullable) read as JSON Schema, and what is no declaration rejected with its reason."""
from pathlib import Path

import pytest

from toolcatalog.interchange import InterchangeError, detect_format, parse_catalog

FILES = Path(__file__).parent / "files"
WEATHER = {"name": "get_weather", "description": "Current weather in a city", "parameters": {
    "type": "OBJECT", "properties": {"city": {"type": "STRING"}, "unit": {"type": "STRING", "enum": ["c", "f"],
                                                                           "nullable": True}},
    "required": ["city"]}}
WEATHER_SCHEMA = {"type": "object", "properties": {"city": {"type": "string"},
                                                   "unit": {"type": ["string", "null"], "enum": ["c", "f", None]}},
                  "required": ["city"]}


def test_a_tools_list_of_declarations_imports_with_json_schema_parameters() -> None:
    catalog = parse_catalog((FILES / "gemini-function-declarations.json").read_text())
    assert catalog.format == "gemini"
    assert [t["name"] for t in catalog.tools] == ["find_movies", "get_showtimes", "book_tickets"]
    movies, showtimes, tickets = catalog.tools
    assert movies["description"].startswith("Find movie titles currently playing")
    assert movies["source"] == "gemini" and movies["category"] is None
    assert movies["parameters"]["properties"]["description"]["type"] == ["string", "null"]
    assert movies["parameters"]["properties"]["max_results"] == {"type": "integer", "format": "int32",
                                                                 "minimum": 1, "maximum": 50}
    assert movies["parameters"]["propertyOrdering"] == ["location", "description", "max_results"]
    shown = showtimes["parameters"]["properties"]
    assert shown["movies"] == {"type": "array", "items": {"type": "string"}, "minItems": 1, "description": "Movie titles"}
    assert shown["theater"] == {"type": ["string", "null"], "enum": ["AMC Mercado 16", "Regal Cinemas", None]}
    assert shown["seats"]["anyOf"] == [{"type": "integer"}, {"type": "string", "enum": ["any"]}]
    assert (shown["accessible"], shown["budget"]) == ({"type": "boolean"}, {"type": ["number", "null"]})
    assert tickets["parameters"]["additionalProperties"] is False  # parametersJsonSchema is taken as it is


def test_a_built_in_tool_beside_the_declarations_is_rejected_with_its_reason() -> None:
    catalog = parse_catalog((FILES / "gemini-function-declarations.json").read_text())
    [rejection] = catalog.rejected
    assert rejection.index == 3 and "'googleSearch'" in rejection.reason and "declares no functions" in rejection.reason


@pytest.mark.parametrize("key", ["functionDeclarations", "function_declarations"])
def test_one_tool_object_in_either_spelling(key: str) -> None:
    catalog = parse_catalog({key: [WEATHER]})
    assert catalog.format == "gemini" and catalog.rejected == []
    assert [(t["name"], t["description"], t["parameters"]) for t in catalog.tools] == [
        ("get_weather", "Current weather in a city", WEATHER_SCHEMA)]


def test_a_bare_declaration_list_is_gemini_not_openai() -> None:
    assert detect_format([WEATHER]) == "gemini"
    assert parse_catalog([WEATHER]).tools[0]["parameters"] == WEATHER_SCHEMA


def test_a_generate_content_request_gives_its_declarations() -> None:
    request = {"contents": [{"role": "user", "parts": [{"text": "Weather in Rome?"}]}],
               "tools": [{"functionDeclarations": [WEATHER]}]}
    assert [t["name"] for t in parse_catalog(request).tools] == ["get_weather"]


def test_garbage_among_the_declarations_is_rejected_one_by_one() -> None:
    document = {"functionDeclarations": [WEATHER, 42, "lookup", {"name": "both", "parameters": {"type": "OBJECT"},
                                                                 "parametersJsonSchema": {"type": "object"}}]}
    catalog = parse_catalog(document)
    assert [t["name"] for t in catalog.tools] == ["get_weather"]
    assert [(r.index, r.name) for r in catalog.rejected] == [(1, ""), (2, ""), (3, "both")]
    assert catalog.rejected[0].reason == "entry must be an object, found int"
    assert "Gemini takes one or the other" in catalog.rejected[2].reason


def test_declarations_that_are_no_list_are_refused_with_a_reason() -> None:
    catalog = parse_catalog([{"functionDeclarations": [WEATHER]}, {"functionDeclarations": {"name": "x"}}])
    assert [t["name"] for t in catalog.tools] == ["get_weather"]
    assert "must be a list of function declarations" in catalog.rejected[0].reason


def test_a_gemini_document_claimed_as_openai_is_refused() -> None:
    with pytest.raises(InterchangeError, match="looks like 'gemini'"):
        parse_catalog({"functionDeclarations": [WEATHER]}, format="openai")
