"""Gemini and Bedrock exports: what each provider's SDK takes as it is (its name rule, its schema
shape), and importing the export gives the same tools back."""
import json
from pathlib import Path

import jsonschema
import pytest

from toolcatalog.interchange import catalog_name_map, detect_format, export_catalog, parse_catalog

FILES = Path(__file__).parent / "files"
SOURCES = ["toolcatalog-v1.json", "petstore-3.0.yaml", "bookshop-3.1.json", "mcp-github-gitlab.json",
           "openai-tools.json", "anthropic-tools.json"]
# Names each provider accepts: Gemini as Vertex AI documents it (a letter or "_" first), Bedrock's ToolSpecification.
GEMINI_NAME = r"^[A-Za-z_][A-Za-z0-9_.:-]{0,63}$"
BEDROCK_NAME = r"^[a-zA-Z0-9_-]{1,64}$"
OBJECT_SCHEMA = {"type": "object", "required": ["type"], "properties": {"type": {"const": "object"}}}
GEMINI_TOOLS = {"type": "array", "items": {
    "type": "object", "required": ["functionDeclarations"], "additionalProperties": False, "properties": {
        "functionDeclarations": {"type": "array", "minItems": 1, "items": {
            "type": "object", "required": ["name", "description"], "additionalProperties": False, "properties": {
                "name": {"type": "string", "pattern": GEMINI_NAME}, "description": {"type": "string"},
                "parametersJsonSchema": OBJECT_SCHEMA}}}}}}
BEDROCK_TOOL_CONFIG = {"type": "object", "required": ["tools"], "additionalProperties": False, "properties": {
    "tools": {"type": "array", "minItems": 1, "items": {
        "type": "object", "required": ["toolSpec"], "additionalProperties": False, "properties": {"toolSpec": {
            "type": "object", "required": ["name", "inputSchema"], "additionalProperties": False, "properties": {
                "name": {"type": "string", "pattern": BEDROCK_NAME},
                "description": {"type": "string", "minLength": 1},
                "inputSchema": {"type": "object", "required": ["json"], "additionalProperties": False,
                                "properties": {"json": OBJECT_SCHEMA}}}}}}}}}
RULES = {"gemini": GEMINI_TOOLS, "bedrock": BEDROCK_TOOL_CONFIG}
AWKWARD_NAMES = ["files.read_file", "1password.get_item", "_1password__get_item", "-dash", "9" * 64,
                 "svc." + "x" * 90, "a.b", "a__b"]


def _catalog(filename: str) -> dict:
    return parse_catalog((FILES / filename).read_text()).to_document()


def _awkward_catalog() -> dict:
    return parse_catalog({"format": "toolcatalog/v1", "tools": [
        {"name": n, "description": "" if n == "-dash" else f"Tool {n}"} for n in AWKWARD_NAMES]}).to_document()


def _names(exported, fmt: str) -> list[str]:
    if fmt == "gemini":
        return [d["name"] for d in exported[0]["functionDeclarations"]]
    return [t["toolSpec"]["name"] for t in exported["tools"]]


def _parameter_schemas(exported, fmt: str) -> list[dict]:
    if fmt == "gemini":
        return [d["parametersJsonSchema"] for d in exported[0]["functionDeclarations"]]
    return [t["toolSpec"]["inputSchema"]["json"] for t in exported["tools"]]


@pytest.mark.parametrize("filename", [*SOURCES, None])
@pytest.mark.parametrize("fmt", ["gemini", "bedrock"])
def test_the_export_keeps_the_providers_rules(filename: str | None, fmt: str) -> None:
    catalog = _catalog(filename) if filename else _awkward_catalog()
    exported = json.loads(json.dumps(export_catalog(catalog, fmt)))
    jsonschema.validate(exported, RULES[fmt])
    for schema in _parameter_schemas(exported, fmt):
        jsonschema.Draft202012Validator.check_schema(schema)
    assert len(set(_names(exported, fmt))) == len(catalog["tools"])


@pytest.mark.parametrize("filename", [*SOURCES, None])
@pytest.mark.parametrize("fmt", ["gemini", "bedrock"])
def test_importing_the_export_gives_the_same_tools(filename: str | None, fmt: str) -> None:
    catalog = _catalog(filename) if filename else _awkward_catalog()
    exported = json.loads(json.dumps(export_catalog(catalog, fmt)))
    assert detect_format(exported) == fmt
    again = parse_catalog(exported, name_map=catalog_name_map(catalog))
    keep = ("name", "description", "parameters")
    assert again.format == fmt and again.rejected == []
    assert [{k: t[k] for k in keep} for t in again.tools] == [{k: t[k] for k in keep} for t in catalog["tools"]]


def test_the_shapes_the_sdks_take() -> None:
    catalog = {"format": "toolcatalog/v1", "tools": [
        {"name": "files.read_file", "description": "Read a file",
         "parameters": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}},
        {"name": "ping", "description": ""}]}
    schema = {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}
    empty = {"type": "object", "properties": {}}
    assert export_catalog(catalog, "gemini") == [{"functionDeclarations": [
        {"name": "files__read_file", "description": "Read a file", "parametersJsonSchema": schema},
        {"name": "ping", "description": "", "parametersJsonSchema": empty}]}]
    assert export_catalog(catalog, "bedrock") == {"tools": [
        {"toolSpec": {"name": "files__read_file", "description": "Read a file", "inputSchema": {"json": schema}}},
        {"toolSpec": {"name": "ping", "inputSchema": {"json": empty}}}]}  # Bedrock refuses an empty description


def test_only_gemini_puts_a_letter_first_and_the_others_keep_their_names() -> None:
    catalog = _awkward_catalog()
    gemini = dict(zip(AWKWARD_NAMES, _names(export_catalog(catalog, "gemini"), "gemini"), strict=True))
    bedrock = dict(zip(AWKWARD_NAMES, _names(export_catalog(catalog, "bedrock"), "bedrock"), strict=True))
    openai = dict(zip(AWKWARD_NAMES, [t["function"]["name"] for t in export_catalog(catalog, "openai")], strict=True))
    assert bedrock == openai  # one mapping: Bedrock's rule is OpenAI's
    assert (openai["1password.get_item"], gemini["1password.get_item"]) == ("1password__get_item", "_1password__get_item_"
                                                                             + gemini["1password.get_item"][-8:])
    assert gemini["_1password__get_item"] == "_1password__get_item"  # a name Gemini accepts keeps itself
    assert gemini["-dash"] == "_-dash" and gemini["files.read_file"] == "files__read_file"


def test_an_empty_catalog_exports_no_gemini_tool() -> None:
    assert export_catalog({"format": "toolcatalog/v1", "tools": []}, "gemini") == []
    assert export_catalog({"format": "toolcatalog/v1", "tools": []}, "bedrock") == {"tools": []}
