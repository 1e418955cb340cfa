"""Export the demo catalog in each format, import it into an empty catalog: the same catalog comes back.

toolcatalog/v1 carries everything; OpenAI, Anthropic and MCP tool lists carry each tool's
name, description and parameters (and MCP its annotations), so that is what they give back.
"""
import json
from io import StringIO

import pytest
from django.core.management import call_command

from tests.support.catalog import api_client, load_demo_catalog
from toolcatalog import selectors
from toolcatalog.interchange import catalog_name_map
from toolcatalog.models import Category, Tool

PROVIDER_FORMATS = ["openai", "anthropic", "mcp"]


def empty_the_catalog() -> None:
    Tool.objects.all().delete()
    Category.objects.all().delete()


def core_of(document: dict, fmt: str = "mcp") -> list[tuple]:
    """Name (as the format spells it), description and parameters of every tool.

    OpenAI and Anthropic forbid dots, so `files.read_file` travels as `files__read_file`
    (SPEC: mapped reversibly); imported into an *empty* catalog, no mapping is known
    and the tool keeps the exported spelling.
    """
    names = catalog_name_map(document)
    spell = (lambda n: names.external(n)) if fmt in ("openai", "anthropic") else (lambda n: n)
    return sorted((spell(t["name"]), t["description"], json.dumps(t["parameters"], sort_keys=True))
                  for t in document["tools"])


def without_provenance(document: dict) -> dict:
    """The demo fixture leaves `source` empty; an import records the format it came in."""
    return {**document, "tools": [{**t, "source": ""} for t in document["tools"]]}


@pytest.fixture
def demo(db) -> dict:
    load_demo_catalog(embed=False)
    return selectors.catalog_document()


def api_round_trip(fmt: str) -> dict:
    client = api_client(["catalog"], name=f"round-trip-{fmt}")
    exported = client.get("/api/v1/catalog/export", {"format": fmt}).json()
    empty_the_catalog()
    report = client.post("/api/v1/catalog/import", {"document": exported}, format="json").json()
    assert report["counts"]["rejected"] == 0, report["rejected"]
    return selectors.catalog_document()


def command_round_trip(fmt: str, tmp_path) -> dict:
    path = tmp_path / "export.json"
    call_command("export_catalog", "--format", fmt, "--output", str(path), stderr=StringIO())
    empty_the_catalog()
    out = StringIO()
    call_command("import_catalog", str(path), stdout=out, stderr=StringIO())
    assert json.loads(out.getvalue())["rejected"] == 0
    return selectors.catalog_document()


def test_v1_through_the_api_gives_the_same_catalog(demo) -> None:
    again = api_round_trip("toolcatalog/v1")
    assert without_provenance(again) == without_provenance(demo)
    assert [t["source"] for t in again["tools"]] == [t["source"] for t in demo["tools"]]  # blank stays blank


def test_v1_through_the_command_gives_the_same_catalog(demo, tmp_path) -> None:
    assert without_provenance(command_round_trip("toolcatalog/v1", tmp_path)) == without_provenance(demo)


@pytest.mark.parametrize("fmt", PROVIDER_FORMATS)
def test_provider_formats_through_the_api(demo, fmt) -> None:
    assert core_of(api_round_trip(fmt)) == core_of(demo, fmt)


@pytest.mark.parametrize("fmt", PROVIDER_FORMATS)
def test_provider_formats_through_the_command(demo, fmt, tmp_path) -> None:
    assert core_of(command_round_trip(fmt, tmp_path)) == core_of(demo, fmt)


def test_command_prints_to_stdout_without_output(demo) -> None:
    out = StringIO()
    call_command("export_catalog", "--format", "anthropic", stdout=out)
    tools = json.loads(out.getvalue())
    assert len(tools) == len(demo["tools"]) and set(tools[0]) == {"name", "description", "input_schema"}


def test_v1_keeps_a_disabled_category_disabled(demo) -> None:
    Category.objects.filter(name="music").update(enabled=False)
    before = selectors.catalog_document()
    again = api_round_trip("toolcatalog/v1")
    assert next(c for c in again["categories"] if c["name"] == "music")["enabled"] is False
    assert without_provenance(again) == without_provenance(before)
