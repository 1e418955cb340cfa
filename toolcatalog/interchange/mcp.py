"""Import MCP ``tools/list`` results, from one server or several.

Each server becomes a category (its instructions become the workflow hint).
Tool names only need to be unique per server in MCP, so when several servers
define the same name, every clashing tool is prefixed ``server.name``.
Annotations are kept as ``key:value`` tags so that export can restore them.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from engine import sanitize_name

from .detect import MCP, describe_keys, vote
from .errors import InterchangeError
from .model import CatalogBuilder, EntryError, ParsedCatalog

_EXPECTED = ("expected an MCP tools/list result {\"tools\": [...]}, a JSON-RPC response "
             "{\"jsonrpc\": \"2.0\", \"result\": {\"tools\": [...]}} or a list of those")


@dataclass
class McpServer:
    """One server's tool list and the metadata that names it."""

    name: str | None
    tools: list[Any]
    description: str = ""
    instructions: str = ""


def _server_from_doc(doc: Any) -> McpServer:
    if not isinstance(doc, dict):
        raise InterchangeError(f"{_EXPECTED}; found {describe_keys(doc)}")
    body: Any = doc
    if "jsonrpc" in doc:
        if isinstance(doc.get("error"), dict):
            detail = doc["error"].get("message", doc["error"])
            raise InterchangeError(f"the MCP server answered with an error: {detail}")
        body = doc.get("result")
        if not isinstance(body, dict):
            raise InterchangeError(f"{_EXPECTED}; the JSON-RPC response has no 'result' object")
    if not isinstance(body.get("tools"), list):
        raise InterchangeError(f"{_EXPECTED}; found {describe_keys(body)}")
    info = _first_dict(doc.get("serverInfo"), body.get("serverInfo"), doc.get("server"))
    name = doc.get("server") if isinstance(doc.get("server"), str) else info.get("name")
    instructions = body.get("instructions") or doc.get("instructions") or ""
    return McpServer(
        name=name.strip() if isinstance(name, str) and name.strip() else None,
        tools=body["tools"],
        description=str(info.get("description") or info.get("title") or ""),
        instructions=instructions if isinstance(instructions, str) else "",
    )


def _first_dict(*values: Any) -> dict[str, Any]:
    return next((v for v in values if isinstance(v, dict)), {})


def mcp_servers(doc: Any, server_name: str | None = None) -> list[McpServer]:
    """Split a document into servers; ``server_name`` names a single server."""
    if isinstance(doc, list) and vote(doc) == MCP:
        servers = [McpServer(None, doc)]  # a bare list of MCP tools
    elif isinstance(doc, list):
        servers = [_server_from_doc(d) for d in doc]
    elif isinstance(doc, dict) and isinstance(doc.get("servers"), list):
        servers = [_server_from_doc(d) for d in doc["servers"]]
    else:
        servers = [_server_from_doc(doc)]
    if server_name and len(servers) == 1:
        servers[0].name = server_name
    return servers


def annotation_tags(tool: dict[str, Any]) -> list[str]:
    """``title`` and ``annotations`` as ``key:value`` tags (``readOnlyHint:true``)."""
    annotations = dict(tool.get("annotations") or {}) if isinstance(tool.get("annotations"), dict) else {}
    if isinstance(tool.get("title"), str):
        annotations.setdefault("title", tool["title"])
    tags = []
    for key, value in annotations.items():
        if isinstance(value, bool):
            tags.append(f"{key}:{'true' if value else 'false'}")
        elif isinstance(value, (str, int, float)):
            tags.append(f"{key}:{value}")
    return tags


def tags_to_annotations(tags: list[str]) -> dict[str, Any]:
    """Inverse of :func:`annotation_tags` for the MCP annotation keys."""
    annotations: dict[str, Any] = {}
    for tag in tags:
        key, sep, value = tag.partition(":")
        if not sep or not (key == "title" or key.endswith("Hint")):
            continue
        annotations[key] = {"true": True, "false": False}.get(value, value) if key != "title" else value
    return annotations


def _clashing_names(servers: list[McpServer]) -> set[str]:
    """Names defined by more than one server."""
    owners: Counter[str] = Counter()
    for server in servers:
        names = {str(t["name"]) for t in server.tools if isinstance(t, dict) and isinstance(t.get("name"), str)}
        owners.update(names)
    return {name for name, count in owners.items() if count > 1}


def _tool_fields(server: McpServer, category: str | None, clashes: set[str]):
    def extract(entry: dict[str, Any]) -> dict[str, Any]:
        if "inputSchema" not in entry and ("parameters" in entry or "input_schema" in entry):
            raise EntryError("looks like an OpenAI or Anthropic tool, not an MCP tool (inputSchema)")
        name = entry.get("name")
        if name in clashes and server.name:
            name = f"{sanitize_name(server.name)}.{name}"
        return {"name": name, "description": entry.get("description"), "parameters": entry.get("inputSchema"),
                "category": category, "tags": annotation_tags(entry)}
    return extract


def parse_mcp(doc: Any, server_name: str | None = None, *, for_ranking: bool = False) -> ParsedCatalog:
    """Import MCP tool lists; see the module docstring for naming rules."""
    servers = mcp_servers(doc, server_name)
    clashes = _clashing_names(servers)
    builder = CatalogBuilder(MCP, for_ranking=for_ranking)
    if server_name and len(servers) > 1:
        builder.warn(f"the server name {server_name!r} was not used: the document names its {len(servers)} "
                     "servers itself")
    index = 0
    for server in servers:
        category = builder.derived_category(server.name, "server") if server.name else None
        if category:
            builder.ensure_category(category, server.description, server.instructions)
        extract = _tool_fields(server, category, clashes)
        for entry in server.tools:
            builder.add_entry(index, entry, extract)
            index += 1
    if clashes:
        builder.warn("tools defined by several servers were prefixed with the server name: "
                      + ", ".join(sorted(clashes)))
    return builder.finish()
