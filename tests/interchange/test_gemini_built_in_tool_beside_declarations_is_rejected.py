"""A Gemini Tool object that holds function declarations and a built-in tool (googleSearch,
codeExecution) imports the declarations and rejects the built-in with its reason, as it does a
built-in in a Tool object of its own: the built-in is never dropped without a word."""
from __future__ import annotations

from tests.support.catalog import api_client
from toolcatalog.interchange import parse_catalog

LOOKUP = {"name": "lookup", "description": "Look a word up"}


def test_the_built_in_is_rejected_after_the_declarations() -> None:
    catalog = parse_catalog({"functionDeclarations": [LOOKUP], "codeExecution": {}})
    assert [t["name"] for t in catalog.tools] == ["lookup"]
    [rejection] = catalog.rejected
    assert rejection.index == 1 and "'codeExecution'" in rejection.reason and "declares no functions" in rejection.reason


def test_the_api_report_lists_it_among_the_rejected(db) -> None:
    request = {"contents": [], "tools": [{"functionDeclarations": [LOOKUP], "googleSearch": {}}]}
    report = api_client(["catalog"], name="gemini-mixed").post(
        "/api/v1/catalog/import", {"document": request, "dry_run": True}, format="json").json()
    assert report["created"] == ["lookup"]
    assert [(r["index"], "'googleSearch'" in r["reason"]) for r in report["rejected"]] == [("1", True)]
