"""The official MCP SDK client against a running toolrouter, recording what it sees."""
from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from typing import Any

import httpx2
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

Transcript = list[str]


def run_session(url: str, key: str, steps: Callable[[ClientSession, Transcript], Awaitable[Any]]) -> tuple[Any, Transcript]:
    """Open an SDK session to `url` with `key` as the Bearer token, run `steps`, close it."""
    transcript: Transcript = []

    async def main() -> Any:
        async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {key}"}, timeout=60) as http:
            async with streamable_http_client(url, http_client=http) as (read, write):
                async with ClientSession(read, write) as session:
                    result = await session.initialize()
                    transcript.append(f"initialize -> protocol {result.protocol_version}, server "
                                      f"{result.server_info.name} {result.server_info.version}, "
                                      f"tools capability {result.capabilities.tools is not None}")
                    return await steps(session, transcript)

    return asyncio.run(main()), transcript


async def list_names(session: ClientSession, transcript: Transcript) -> list[str]:
    listed = await session.list_tools()
    names = [t.name for t in listed.tools]
    transcript.append(f"tools/list -> {names}")
    return names


async def search(session: ClientSession, transcript: Transcript, query: str, limit: int = 5) -> dict:
    result = await session.call_tool("tool_search", {"query": query, "limit": limit})
    assert not result.is_error, result.content
    structured = result.structured_content
    assert json.loads(result.content[0].text) == structured  # the same answer as text, for older clients
    transcript.append(f"tools/call tool_search {query!r} -> {[t['name'] for t in structured['tools']]}"
                      + (f" failSafe: {structured['failSafe']['reason']}" if "failSafe" in structured else ""))
    return structured


async def refused(session: ClientSession, transcript: Transcript, name: str) -> MCPError:
    try:
        await session.call_tool(name, {})
    except MCPError as exc:
        transcript.append(f"tools/call {name} -> JSON-RPC error {exc.error.code}: {exc.error.message}")
        return exc
    raise AssertionError(f"calling {name} was not refused")
