"""A file with some bad entries imports the good ones and reports each bad one with its reason."""
import json
from pathlib import Path

from tests.support.catalog import api_client
from toolcatalog.models import Tool

FILES = Path(__file__).resolve().parents[1] / "interchange" / "files"


def test_good_entries_import_bad_ones_are_reported(db) -> None:
    client = api_client(["catalog"], name="importer")
    document = json.loads((FILES / "openai-partial.json").read_text())
    report = client.post("/api/v1/catalog/import", {"document": document}, format="json").json()
    print(f"\nopenai-partial.json: {json.dumps(report)}")
    assert report["counts"]["created"] >= 1 and report["counts"]["rejected"] >= 1
    assert all(r["reason"] for r in report["rejected"])
    assert set(Tool.objects.values_list("name", flat=True)) == set(report["created"])


def test_service_level_rejections_join_the_report(db) -> None:
    client = api_client(["catalog"], name="importer")
    document = {"format": "toolcatalog/v1", "categories": [], "tools": [
        {"name": "ok_tool", "description": "fine"},
        {"name": "bad_schema", "description": "x", "parameters": {"type": "object", "properties": 3}},
        {"description": "a tool without a name"},
        {"name": "ok_tool", "description": "twice"},
    ]}
    report = client.post("/api/v1/catalog/import", {"document": document}, format="json").json()
    assert report["created"] == ["ok_tool"]
    assert report["counts"]["rejected"] == 3
    reasons = {r["name"]: r["reason"] for r in report["rejected"]}
    assert {"bad_schema", "ok_tool"} <= set(reasons)
    assert "JSON Schema" in reasons["bad_schema"] and all(reasons.values())
