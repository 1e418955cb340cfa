"""An MCP server's name or an OpenAPI tag that is no category name still files its tools: under
the name-safe spelling the tool-name prefix uses, said in a warning, instead of every tool lost."""
from __future__ import annotations

import pytest

from toolcatalog import services
from toolcatalog.models import Tool

pytestmark = pytest.mark.django_db


def test_mcp_servers_named_as_packages_and_in_words() -> None:
    def server(name: str, tool: str) -> dict:
        return {"server": name, "tools": [{"name": tool, "description": "Does it.", "inputSchema": {"type": "object"}}]}

    document = {"servers": [server("@acme/notes", "acme_only"), server("Local Files Server", "read_file")]}
    report = services.import_any(document)
    assert report["counts"]["rejected"] == 0, report["rejected"]
    assert dict(Tool.objects.values_list("name", "category__name")) == {
        "acme_only": "acme_notes", "read_file": "Local_Files_Server"}
    assert any("'@acme/notes' is the category 'acme_notes'" in w for w in report["warnings"])


def test_openapi_tags_in_words() -> None:
    document = {"openapi": "3.0.3", "info": {"title": "Shop", "version": "1"},
                "tags": [{"name": "Store Orders", "description": "Orders placed in the store"}],
                "paths": {"/orders": {"get": {"operationId": "listOrders", "summary": "List the orders",
                                              "tags": ["Store Orders"], "responses": {"200": {"description": "ok"}}}}}}
    report = services.import_any(document)
    assert report["counts"]["rejected"] == 0, report["rejected"]
    tool = Tool.objects.get(name="listOrders")
    assert tool.category.name == "Store_Orders"
    assert tool.category.description == "Orders placed in the store"
