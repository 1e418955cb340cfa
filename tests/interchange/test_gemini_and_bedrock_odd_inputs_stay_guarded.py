"""Odd but valid (or plainly wrong) Gemini and Bedrock documents that already import as they should:
each tool imported or rejected with a reason naming it, the format never mistaken, nothing dropped
unsaid. Then a catalog with names the providers cannot carry exported and imported back over
itself: the same tools, the curator's edits kept."""
from __future__ import annotations

import json
from typing import Any

import pytest

from routing.evaluation import evaluation_catalog
from tests.support.catalog import api_client
from toolcatalog.interchange import InterchangeError, parse_catalog
from toolcatalog.models import Category, Tool

S = {"type": "object", "properties": {"q": {"type": "string"}}}
EVERY_FEATURE = {"type": "OBJECT", "title": "Args", "propertyOrdering": ["mode", "items"], "required": ["mode"],
                 "properties": {
                     "mode": {"type": "STRING", "format": "enum", "enum": ["a", "b"], "nullable": True,
                              "title": "Mode", "default": "a", "example": "b"},
                     "items": {"type": "array", "minItems": 1, "maxItems": 5, "items": {
                         "type": "OBJECT", "properties": {"deep": {"type": "OBJECT", "required": ["n"], "properties": {
                             "n": {"type": "INTEGER", "format": "int64", "minimum": 1, "maximum": 9}}}}}},
                     "either": {"anyOf": [{"type": "STRING"}, {"type": "NUMBER", "format": "double"}]}}}
WITH_REFS = {"type": "object", "$defs": {"P": {"type": "string"}}, "properties": {"p": {"$ref": "#/$defs/P"}}}


def declarations(*items: dict[str, Any]) -> dict[str, Any]:
    return {"functionDeclarations": list(items)}


def spec(name: str, **more: Any) -> dict[str, Any]:
    return {"toolSpec": {"name": name, "description": "d", **more}}


# (document, format named or None, format read, tools imported, rejections as (index, words in the reason))
CASES: dict[str, tuple[Any, str | None, str, list[str], list[tuple[int, str]]]] = {
    "gemini every Schema feature": (declarations({"name": "full", "description": "d", "parameters": EVERY_FEATURE}),
                                    None, "gemini", ["full"], []),
    "gemini $defs and $ref": (declarations({"name": "refs", "description": "d", "parametersJsonSchema": WITH_REFS}),
                              None, "gemini", ["refs"], []),
    "gemini both schemas": (declarations({"name": "both", "description": "d", "parameters": {"type": "OBJECT"},
                                          "parametersJsonSchema": S}), None, "gemini", [], [(0, "one or the other")]),
    "gemini no arguments": (declarations({"name": "now", "description": "The time"}), None, "gemini", ["now"], []),
    "gemini empty declarations": (declarations(), None, "gemini", [], []),
    "gemini colon and 70 characters": (declarations({"name": "ns:tool", "description": "d"},
                                                    {"name": "a" * 70, "description": "d"}),
                                       None, "gemini", ["ns_tool", "a" * 70], []),
    "gemini 129 characters": (declarations({"name": "a" * 129, "description": "d"}), None, "gemini", [],
                              [(0, "at most 128")]),
    "gemini duplicate": (declarations({"name": "x", "description": "d"}, {"name": "x", "description": "e"}),
                         "gemini", "gemini", ["x"], [(1, "duplicate name")]),
    "gemini NON_BLOCKING": (declarations({"name": "x", "description": "d", "behavior": "NON_BLOCKING"}),
                            None, "gemini", ["x"], []),
    "gemini built-in alone": ([declarations({"name": "x", "description": "d"}), {"codeExecution": {}}],
                              None, "gemini", ["x"], [(1, "'codeExecution'")]),
    "gemini count not a number": (declarations({"name": "bad", "description": "d", "parameters": {
        "type": "OBJECT", "properties": {"v": {"type": "ARRAY", "minItems": "-1"}}}}), None, "gemini", [],
        [(0, "properties/v/minItems")]),
    "gemini YAML": ("functionDeclarations:\n  - name: w\n    description: d\n    parameters:\n      type: OBJECT\n",
                    None, "gemini", ["w"], []),
    "bedrock no inputSchema": ({"toolConfig": {"tools": [spec("now")]}}, None, "bedrock", ["now"], []),
    "bedrock inputSchema without json": ({"toolConfig": {"tools": [spec("x", inputSchema={})]}}, None, "bedrock",
                                         [], [(0, "as 'json'")]),
    "bedrock toolChoice and cachePoint": ({"toolConfig": {"tools": [spec("a", inputSchema={"json": S}),
                                                                    {"cachePoint": {"type": "default"}}],
                                                          "toolChoice": {"tool": {"name": "a"}}}},
                                          None, "bedrock", ["a"], []),
    "bedrock whole request with dots": ({"modelId": "m", "messages": [{"role": "user", "content": [{"text": "hi"}]}],
                                         "additionalModelRequestFields": {"top_k": 5},
                                         "toolConfig": {"tools": [spec("files.read")]}}, None, "bedrock",
                                        ["files.read"], []),
    "bedrock duplicate": ({"tools": [spec("a"), spec("a")]}, "bedrock", "bedrock", ["a"], [(1, "duplicate name")]),
    "bedrock YAML": ("toolConfig:\n  tools:\n    - toolSpec:\n        name: a\n        description: d\n",
                     None, "bedrock", ["a"], []),
}


@pytest.mark.parametrize("case", list(CASES))
def test_each_entry_is_imported_or_rejected_with_its_reason(case: str) -> None:
    document, named, read_as, tools, rejections = CASES[case]
    catalog = parse_catalog(document, named)
    assert catalog.format == read_as
    assert [t["name"] for t in catalog.tools] == tools
    assert [r.index for r in catalog.rejected] == [index for index, _ in rejections]
    assert all(words in r.reason for r, (_, words) in zip(catalog.rejected, rejections, strict=True))


@pytest.mark.parametrize("case", ["gemini every Schema feature", "bedrock whole request with dots"])
def test_evaluate_reads_them_too(case: str) -> None:
    document, _, _, tools, _ = CASES[case]
    assert [t["name"] for t in evaluation_catalog(json.dumps(document)).document["tools"]] == tools


@pytest.mark.parametrize(("document", "named"), [
    ([{"type": "function", "function": {"name": "x", "description": "d"}}], "gemini"),
    (declarations({"name": "x", "description": "d"}), "bedrock"),
    ({"toolConfig": {"tools": [spec("x")]}}, "gemini"),
])
def test_a_document_named_as_the_other_format_is_refused(document: Any, named: str) -> None:
    with pytest.raises(InterchangeError, match="looks like"):
        parse_catalog(document, named)


NAMES = ["files.read_file", "1password.get_item", "a" * 70, "plain"]


@pytest.mark.parametrize("fmt", ["gemini", "bedrock"])
def test_mapped_names_round_trip_over_a_curated_catalog(db, fmt: str) -> None:
    files = Category.objects.create(name="files")
    for name in NAMES:
        Tool.objects.create(name=name, description=f"Does {name}", category=files, usage_hint="hint", tags=["t"])
    Tool.objects.filter(name="plain").update(description="Curated", curated_fields=["description"])
    client = api_client(["catalog"], name=f"names-{fmt}")
    exported = client.get("/api/v1/catalog/export", {"format": fmt}).json()
    tools = exported[0]["functionDeclarations"] if fmt == "gemini" else [t["toolSpec"] for t in exported["tools"]]
    next(t for t in tools if t["name"] == "plain")["description"] = "From the file"
    for dry_run in (True, False):
        report = client.post("/api/v1/catalog/import", {"document": exported, "dry_run": dry_run}, format="json").json()
        assert (report["format"], report["created"], report["rejected"]) == (fmt, [], [])
        assert sorted(report["unchanged"]) == sorted(NAMES) and [k["name"] for k in report["kept"]] == ["plain"]
    assert Tool.objects.count() == len(NAMES)
    assert set(Tool.objects.values_list("description", "usage_hint", "category__name").distinct()) == {
        *((f"Does {n}", "hint", "files") for n in NAMES[:-1]), ("Curated", "hint", "files")}
