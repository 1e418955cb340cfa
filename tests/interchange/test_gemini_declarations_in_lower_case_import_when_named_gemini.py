"""A bare list of Gemini declarations whose types are in lower case (as the SDKs accept) looks like
OpenAI's legacy functions; named as Gemini (API `format`, `--format`, the admin's choice) it imports
as Gemini, its `nullable` read, instead of being refused whole as "looks like 'openai'"."""
from __future__ import annotations

import json

from toolcatalog.interchange import parse_catalog

DECLARATION = {"name": "find_flights", "description": "Find flights",
               "parameters": {"type": "object", "properties": {"airline": {"type": "string", "nullable": True}}}}


def test_named_gemini_it_imports_as_gemini() -> None:
    catalog = parse_catalog([DECLARATION], format="gemini")
    assert catalog.format == "gemini" and catalog.rejected == []
    assert catalog.tools[0]["parameters"]["properties"]["airline"] == {"type": ["string", "null"]}


def test_the_admin_page_imports_it(admin_client_logged_in) -> None:
    page = admin_client_logged_in.post("/admin/catalog-import/", {
        "text": json.dumps([DECLARATION]), "format": "gemini", "action": "preview"}).content.decode()
    assert "Preview (nothing changed) — gemini" in page and "Nothing was imported" not in page

