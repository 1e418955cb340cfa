"""A live MCP server's `tools/list`, for `manage.py import_catalog --mcp-stdio/--mcp-url`.

Only an operator's command reaches out (no web request ever does): it starts the server's
command (stdio) or connects to its URL (streamable HTTP) with the official SDK client,
initialises, reads every page of `tools/list`, and closes. The whole exchange runs under one
timeout. What comes back is the document the MCP importer reads (`interchange/mcp.py`): the
server's name (its category and namespace), its instructions (the category's workflow hint)
and its tools.
"""
from __future__ import annotations

import asyncio
import shlex
from dataclasses import dataclass, field
from typing import Any

import anyio
import httpx2
import mcp_types as types
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

MAX_PAGES = 100


class McpServerError(Exception):
    """The server could not be started, reached, or read in time."""


@dataclass(frozen=True)
class McpServerSource:
    """Where one server is: a command line (stdio) or a URL, with HTTP headers for the URL."""

    stdio: str | None = None
    url: str | None = None
    headers: dict[str, str] = field(default_factory=dict)

    def __str__(self) -> str:
        return f"stdio {self.stdio!r}" if self.stdio else f"URL {self.url}"


def read_tool_lists(sources: list[McpServerSource], timeout: float) -> dict[str, Any]:
    """Every source's tools, as one `{"servers": [...]}` document for the MCP importer."""
    return {"servers": [asyncio.run(_read_in_time(source, timeout)) for source in sources]}


async def _read_in_time(source: McpServerSource, timeout: float) -> dict[str, Any]:
    try:
        with anyio.fail_after(timeout):
            return await _read(source)
    except TimeoutError:
        raise McpServerError(f"{source} did not answer tools/list within {timeout:g} s") from None
    except McpServerError:
        raise
    except Exception as exc:  # noqa: BLE001 - a server failing in any way is reported, not raised raw
        raise McpServerError(f"{source}: {type(exc).__name__}: {_first_cause(exc)}") from exc


def _first_cause(exc: BaseException) -> str:
    """The innermost message of an exception group (anyio wraps transport errors in one)."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return str(exc) or type(exc).__name__


async def _read(source: McpServerSource) -> dict[str, Any]:
    if source.stdio:
        words = shlex.split(source.stdio)
        if not words:
            raise McpServerError("--mcp-stdio needs a command")
        async with stdio_client(StdioServerParameters(command=words[0], args=words[1:])) as (read, write):
            return await _tools_of(read, write)
    assert source.url is not None
    async with httpx2.AsyncClient(headers=source.headers, timeout=30) as http:
        async with streamable_http_client(source.url, http_client=http) as (read, write):
            return await _tools_of(read, write)


async def _tools_of(read: Any, write: Any) -> dict[str, Any]:
    async with ClientSession(read, write) as session:
        hello = await session.initialize()
        tools: list[dict[str, Any]] = []
        cursor: str | None = None
        for _ in range(MAX_PAGES):
            page = await session.list_tools(params=types.PaginatedRequestParams(cursor=cursor) if cursor else None)
            tools += [t.model_dump(by_alias=True, mode="json", exclude_none=True) for t in page.tools]
            cursor = page.next_cursor
            if not cursor:
                break
        info = hello.server_info.model_dump(by_alias=True, mode="json", exclude_none=True)
        return {"serverInfo": info, "instructions": hello.instructions or "", "tools": tools}
