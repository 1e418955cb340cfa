"""A category's page marks each of its tools core, disabled, or both: a disabled core tool read
"(core)" alone, as if it were offered on every request."""
from toolcatalog import services
from toolcatalog.models import Category, Tool


def test_a_disabled_core_tool_is_marked_both(db, admin_client_logged_in) -> None:
    files = services.save_validated(Category(name="files", description="Files."))
    services.save_validated(Tool(name="read_file", description="Reads a file.", category=files, core=True, enabled=False))
    services.save_validated(Tool(name="write_file", description="Writes a file.", category=files, core=True))
    services.save_validated(Tool(name="list_files", description="Lists files.", category=files, enabled=False))
    page = admin_client_logged_in.get(f"/admin/toolcatalog/category/{files.pk}/change/").content.decode()
    assert "read_file</a> (core, disabled)" in page
    assert "write_file</a> (core)" in page and "list_files</a> (disabled)" in page
