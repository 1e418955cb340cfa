"""A small real MCP server (the official SDK's MCPServer) for the import tests.

    python tests/support/mcp_tool_server.py NAME stdio
    python tests/support/mcp_tool_server.py NAME http PORT

Two servers share a tool name (`search`), as real ones do, so importing both shows the
namespacing; each has one tool of its own.
"""
from __future__ import annotations

import sys

from mcp.server.mcpserver import MCPServer


def build(name: str) -> MCPServer:
    server = MCPServer(name, instructions=f"Use {name}'s search before its other tool.")

    @server.tool(description=f"Search {name} for items matching a query")
    def search(query: str, limit: int = 5) -> str:
        return f"{name} results for {query}"

    if name == "notes":
        @server.tool(description="Create a note with a title and a body")
        def create_note(title: str, body: str) -> str:
            return f"created {title}"
    else:
        @server.tool(description="Fetch one calendar event by its id")
        def get_event(event_id: str) -> str:
            return f"event {event_id}"
    return server


if __name__ == "__main__":
    name, transport = sys.argv[1], sys.argv[2]
    if transport == "stdio":
        build(name).run("stdio")
    else:
        build(name).run("streamable-http", host="127.0.0.1", port=int(sys.argv[3]), json_response=True)
