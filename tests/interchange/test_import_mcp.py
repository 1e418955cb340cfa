"""MCP tools/list results: several servers, name clashes, annotations, JSON-RPC envelopes."""

import json
from pathlib import Path

import pytest

from toolcatalog.interchange import parse_catalog

FILES = Path(__file__).parent / "files"


@pytest.fixture(scope="module")
def two_servers():
    return parse_catalog((FILES / "mcp-github-gitlab.json").read_text())


def test_clashing_names_are_prefixed_with_the_server(two_servers) -> None:
    assert [t["name"] for t in two_servers.tools] == [
        "github.search_repositories", "get_file_contents", "github.create_issue", "create_pull_request",
        "gitlab.search_repositories", "gitlab.create_issue", "create_merge_request",
    ]
    assert two_servers.rejected == []
    assert any("create_issue, search_repositories" in w for w in two_servers.warnings)


def test_each_server_is_a_category(two_servers) -> None:
    github, gitlab = two_servers.categories
    assert (github["name"], github["description"]) == ("github", "GitHub")
    assert github["workflow_hint"].startswith("Use search_repositories")
    assert gitlab["name"] == "gitlab"  # from "server" beside a JSON-RPC response
    categories = {t["name"]: t["category"] for t in two_servers.tools}
    assert categories["create_merge_request"] == "gitlab"
    assert categories["get_file_contents"] == "github"


def test_annotations_become_tags(two_servers) -> None:
    tags = {t["name"]: t["tags"] for t in two_servers.tools}
    assert tags["github.search_repositories"] == [
        "title:Search repositories", "readOnlyHint:true", "openWorldHint:true"]
    assert "title:Open issue" in tags["github.create_issue"]  # tool-level title
    assert tags["create_pull_request"] == []


def test_input_schema_with_draft07_dialect_is_kept(two_servers) -> None:
    tool = next(t for t in two_servers.tools if t["name"] == "get_file_contents")
    assert tool["parameters"]["$schema"] == "http://json-schema.org/draft-07/schema#"
    assert tool["parameters"]["required"] == ["owner", "repo", "path"]
    assert tool["source"] == "mcp"


def test_json_rpc_response_with_server_name_argument() -> None:
    catalog = parse_catalog((FILES / "mcp-filesystem-jsonrpc.json").read_bytes(), server_name="filesystem")
    assert [t["name"] for t in catalog.tools] == [
        "read_text_file", "write_file", "list_directory", "list_allowed_directories"]
    assert [c["name"] for c in catalog.categories] == ["filesystem"]
    assert all(t["category"] == "filesystem" for t in catalog.tools)
    write = catalog.tools[1]
    assert write["tags"] == ["readOnlyHint:false", "destructiveHint:true", "idempotentHint:true"]


def test_without_a_server_name_tools_are_uncategorised() -> None:
    catalog = parse_catalog((FILES / "mcp-filesystem-jsonrpc.json").read_text())
    assert catalog.categories == [] and {t["category"] for t in catalog.tools} == {None}


def test_server_name_argument_overrides_server_info() -> None:
    doc = {"serverInfo": {"name": "mcp-server-time", "version": "1.0"},
           "tools": [{"name": "get_current_time", "inputSchema": {"type": "object"}}]}
    assert parse_catalog(doc, server_name="time").tools[0]["category"] == "time"


def test_servers_wrapper_and_server_names_needing_sanitising() -> None:
    doc = {"servers": [
        {"server": "@acme/notes", "tools": [{"name": "search", "inputSchema": {"type": "object"}}]},
        {"server": "docs", "tools": [{"name": "search", "inputSchema": {"type": "object"}}]},
    ]}
    catalog = parse_catalog(json.dumps(doc))
    assert [t["name"] for t in catalog.tools] == ["acme_notes.search", "docs.search"]
    # The category is named as the prefix is: '@acme/notes' is no category name the catalog can hold.
    assert catalog.tools[0]["category"] == "acme_notes"
    assert [c["name"] for c in catalog.categories] == ["acme_notes", "docs"]
    assert any("'@acme/notes' is the category 'acme_notes'" in w for w in catalog.warnings)


def test_clash_without_server_names_rejects_the_second() -> None:
    doc = [{"tools": [{"name": "search", "inputSchema": {}}]}, {"tools": [{"name": "search", "inputSchema": {}}]}]
    catalog = parse_catalog(doc, format="mcp")
    assert [t["name"] for t in catalog.tools] == ["search"]
    assert catalog.rejected[0].reason.startswith("duplicate name")
