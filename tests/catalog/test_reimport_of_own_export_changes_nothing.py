"""The catalog's own toolcatalog/v1 export, imported back, changes nothing: not even the blank
`source` of a tool a curator added in the admin."""
from toolcatalog import services
from toolcatalog.models import Tool


def test_a_tool_added_in_the_admin_keeps_its_blank_source(demo_catalog) -> None:
    services.save_validated(Tool(name="added_by_hand", description="Added by a curator in the admin.", source=""))
    report = services.import_any(services.export())
    assert report["created"] == [] and report["updated"] == [] and report["rejected"] == []
    assert Tool.objects.get(name="added_by_hand").source == ""


def test_a_new_tool_without_a_source_is_marked_with_the_import_s(db) -> None:
    services.import_any({"format": "toolcatalog/v1", "tools": [
        {"name": "from_a_file", "description": "Comes from a file that names no source."}]})
    assert Tool.objects.get(name="from_a_file").source == "toolcatalog/v1"
