"""The MCP door: an MCP server (streamable HTTP) in front of the catalog, at /mcp.

Design. The project serves WSGI (runserver, gunicorn) and the MCP SDK's server
side is ASGI (Starlette, an event loop and long-lived streams). Rather than run a second kind
of server, this door implements the streamable-HTTP exchange itself in a Django view and uses
the SDK's own wire types (`mcp_types`, the same objects as `mcp.types`) to validate each
request for the negotiated protocol version and to shape each result for it
(`mcp_types.methods.parse_client_request` / `serialize_server_result`, what the SDK's own
server runs). The spec allows it: a server may answer every POST with one JSON response
(`application/json`) instead of an event stream, and may refuse the optional GET stream (405).
So the door works unchanged under `make run` and docker-compose's gunicorn, behind the same
key authentication, scopes, rate limit and toolset binding as the REST API.

What it serves: `initialize`, `notifications/initialized` (and any notification: 202),
`ping`, `tools/list` and `tools/call`. Listed: `tool_search` and, when the key says so
(`ApiKey.mcp_core_tools`), the core tools the key may see. `tool_search` takes
`{"query", "limit"}` and answers the matching tools' MCP definitions, with each tool's
hint under `_meta`, and the workflow guidance, as structured content and as its JSON text.
toolrouter describes tools, it does not run them: calling a listed core tool answers a tool
error saying where it runs; a tool the key may not see is an unknown tool (-32602), the
same answer as a name the catalog does not have.

Sessions: `initialize` answers an `Mcp-Session-Id`, signed with the project's secret, naming
the key and the negotiated protocol version; every later request must carry it (400 without,
404 for one that is unknown, expired, ended or another key's, after which a client
initialises again). A signed id needs no shared storage, so every gunicorn worker accepts it
and Redis being away does not end sessions; `DELETE /mcp` ends one by recording its id in
Redis until it would have expired anyway (without Redis an ended session lives on until
then, and the answer says so in the log).

Names: a key with `mcp_namespaced_names` sees tools as `category.name` (an imported MCP
server's name is its tools' category), and may call or select them by either spelling.
"""
from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import mcp_types as types
import redis
from django.conf import settings
from django.core import signing
from mcp_types import methods as wire
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, LATEST_HANDSHAKE_VERSION
from pydantic import ValidationError

from api.models import ApiKey
from engine import sanitize_name
from routing import services
from routing.meta_tool import DESCRIPTION, OUTPUT_SCHEMA, PARAMETERS, SYSTEM_PROMPT, TOOL_SEARCH_NAME
from shared.json_input import JsonInputError, loads
from shared.redis_client import get_redis
from shared.storable_text import unstorable_character

logger = logging.getLogger(__name__)

SERVER_INFO = types.Implementation(name="toolrouter", version="1.0.0", title="toolrouter tool catalog")
SESSION_HEADER = "Mcp-Session-Id"
VERSION_HEADER = "MCP-Protocol-Version"
_SESSION_SALT = "toolrouter.mcp-session"
_ENDED_PREFIX = "toolrouter:mcp:ended:"
MAX_SEARCH_LIMIT = 50

# JSON-RPC error codes (the spec's, as the SDK names them).
PARSE_ERROR = types.PARSE_ERROR
INVALID_REQUEST = types.INVALID_REQUEST
METHOD_NOT_FOUND = types.METHOD_NOT_FOUND
INVALID_PARAMS = types.INVALID_PARAMS


@dataclass
class Reply:
    """What the view sends: an HTTP status, a JSON body (None: no body) and headers."""

    status: int
    body: dict[str, Any] | None = None
    headers: dict[str, str] = field(default_factory=dict)


def rpc_error(request_id: Any, code: int, message: str, status: int = 200) -> Reply:
    return Reply(status, {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}})


# --------------------------------------------------------------------------
# sessions
# --------------------------------------------------------------------------
@dataclass(frozen=True)
class Session:
    key_id: int
    protocol_version: str


def issue_session(key_id: int, protocol_version: str) -> str:
    return signing.dumps({"k": key_id, "v": protocol_version}, salt=_SESSION_SALT)


def open_session(session_id: str, key_id: int) -> Session | None:
    """The session this id names for this key, or None (unknown, expired, ended, another key's)."""
    try:
        data = signing.loads(session_id, salt=_SESSION_SALT, max_age=settings.MCP_SESSION_MAX_AGE_SECONDS)
    except signing.BadSignature:  # SignatureExpired included
        return None
    if not isinstance(data, dict) or data.get("k") != key_id or data.get("v") not in HANDSHAKE_PROTOCOL_VERSIONS:
        return None
    if _is_ended(session_id):
        return None
    return Session(key_id, data["v"])


def end_session(session_id: str) -> bool:
    """Record that the session ended; False when Redis could not be told."""
    try:
        get_redis().set(_ended_key(session_id), b"1", ex=settings.MCP_SESSION_MAX_AGE_SECONDS)
    except redis.RedisError as exc:
        logger.warning("MCP session end not recorded (Redis unreachable: %s); it stays valid until it expires", exc)
        return False
    return True


def _is_ended(session_id: str) -> bool:
    try:
        return bool(get_redis().exists(_ended_key(session_id)))
    except redis.RedisError:
        return False  # Redis away: the signed id still holds (see the module docstring)


def _ended_key(session_id: str) -> str:
    return _ENDED_PREFIX + hashlib.sha256(session_id.encode()).hexdigest()


# --------------------------------------------------------------------------
# one POST
# --------------------------------------------------------------------------
def handle_post(body: bytes, headers: Mapping[str, str], api_key: ApiKey, catalog_stamp: bytes | None) -> Reply:
    """Answer one POSTed JSON-RPC message (batches are not part of the current protocol)."""
    try:
        raw = loads(body, max_depth=settings.LLM_MAX_JSON_DEPTH)
    except JsonInputError as exc:
        return rpc_error(None, PARSE_ERROR, f"The body is {exc.reason}.", 400)
    if isinstance(raw, list):
        return rpc_error(None, INVALID_REQUEST, "JSON-RPC batches are not supported; send one message per POST.", 400)
    if isinstance(raw, dict) and (problem := _envelope_problem(raw)):
        return problem
    if isinstance(raw, dict) and isinstance(raw.get("id"), float):
        raw = {**raw, "id": int(raw["id"])}  # 1.0 is the number 1; the SDK's types take integers only
    try:
        message = types.jsonrpc_message_adapter.validate_python(raw, by_name=False)
    except ValidationError:
        return rpc_error(raw.get("id") if isinstance(raw, dict) else None, INVALID_REQUEST,
                         "The body is not a JSON-RPC 2.0 message.", 400)
    request = message if isinstance(message, types.JSONRPCRequest) else None
    if request is not None and request.method == "initialize":
        return _initialize(request, api_key)
    request_id = request.id if request is not None else None
    session_id = headers.get(SESSION_HEADER.lower(), "")
    if not session_id:
        return rpc_error(request_id, INVALID_REQUEST, f"Missing {SESSION_HEADER}: send initialize first.", 400)
    session = open_session(session_id, api_key.pk)
    if session is None:
        return rpc_error(request_id, INVALID_REQUEST, "Unknown or expired session: initialize again.", 404)
    announced = headers.get(VERSION_HEADER.lower())
    if announced and announced != session.protocol_version:
        return rpc_error(request_id, INVALID_REQUEST,
                         f"{VERSION_HEADER} {announced!r} is not this session's ({session.protocol_version}).", 400)
    if request is None:
        return Reply(202)  # notifications and responses: accepted, nothing to answer
    return Door(api_key, session, catalog_stamp).answer(request)


def _envelope_problem(raw: dict[str, Any]) -> Reply | None:
    """What the SDK's types let through as a notification: a request whose id is neither a string
    nor a whole number would get no answer at all, and a reply can carry a result or an error, not both."""
    if "method" in raw and "id" in raw:
        request_id = raw["id"]
        if isinstance(request_id, bool) or not isinstance(request_id, str | int | float):
            return rpc_error(None, INVALID_REQUEST, "A request's id must be a string or a number.", 400)
        if isinstance(request_id, float) and not request_id.is_integer():
            return rpc_error(None, INVALID_REQUEST, "A request's id must be a string or a whole number.", 400)
    if "result" in raw and "error" in raw:
        return rpc_error(None, INVALID_REQUEST, "A JSON-RPC response carries a result or an error, not both.", 400)
    return None


def _initialize(message: types.JSONRPCRequest, api_key: ApiKey) -> Reply:
    params = message.params or {}
    asked = params.get("protocolVersion") if isinstance(params, dict) else None
    version = asked if asked in HANDSHAKE_PROTOCOL_VERSIONS else LATEST_HANDSHAKE_VERSION
    try:
        wire.parse_client_request("initialize", version, params)
    except ValidationError as exc:
        return rpc_error(message.id, INVALID_PARAMS, f"Invalid initialize params: {_first_error(exc)}")
    result = types.InitializeResult(
        protocol_version=version,
        capabilities=types.ServerCapabilities(tools=types.ToolsCapability(list_changed=False)),
        server_info=SERVER_INFO,
        instructions=SYSTEM_PROMPT,
    )
    reply = _result(message.id, "initialize", version, result)
    reply.headers[SESSION_HEADER] = issue_session(api_key.pk, version)
    return reply


def _result(request_id: Any, method: str, version: str, result: types.Result) -> Reply:
    dumped = result.model_dump(by_alias=True, mode="json", exclude_none=True)
    return Reply(200, {"jsonrpc": "2.0", "id": request_id,
                       "result": wire.serialize_server_result(method, version, dumped)})


def _first_error(exc: ValidationError) -> str:
    error = exc.errors()[0]
    where = ".".join(str(p) for p in error.get("loc", ()))
    return f"{where}: {error.get('msg', '')}" if where else str(error.get("msg", ""))


# --------------------------------------------------------------------------
# requests inside a session
# --------------------------------------------------------------------------
class Door:
    def __init__(self, api_key: ApiKey, session: Session, catalog_stamp: bytes | None) -> None:
        self.api_key = api_key
        self.caller = services.Caller.of_key(api_key)
        self.version = session.protocol_version
        self.catalog_stamp = catalog_stamp

    def answer(self, message: types.JSONRPCRequest) -> Reply:
        try:
            request = wire.parse_client_request(message.method, self.version, message.params)
        except KeyError:
            return rpc_error(message.id, METHOD_NOT_FOUND, f"Method not found: {message.method}")
        except ValidationError as exc:
            return rpc_error(message.id, INVALID_PARAMS, f"Invalid params for {message.method}: {_first_error(exc)}")
        if isinstance(request, types.PingRequest):
            return _result(message.id, "ping", self.version, types.EmptyResult())
        if isinstance(request, types.ListToolsRequest):
            return _result(message.id, "tools/list", self.version, types.ListToolsResult(tools=self.listed_tools()))
        if isinstance(request, types.CallToolRequest):
            return self.call_tool(message.id, request.params.name, request.params.arguments or {})
        return rpc_error(message.id, METHOD_NOT_FOUND, f"Method not found: {message.method}")

    # -- tools/list ---------------------------------------------------------------------------
    def listed_tools(self) -> list[types.Tool]:
        tools = [types.Tool(name=TOOL_SEARCH_NAME, description=DESCRIPTION, input_schema=PARAMETERS,
                            output_schema=OUTPUT_SCHEMA,
                            annotations=types.ToolAnnotations(title="Search the tool catalog", read_only_hint=True,
                                                              open_world_hint=False))]
        if self.api_key.mcp_core_tools:
            core = services.core_tools(self.caller, "mcp", catalog_stamp=self.catalog_stamp)
            tools.extend(types.Tool.model_validate(self.presented(t.definition, t.category), by_name=False)
                         for t in core)
        return tools

    def presented(self, definition: dict[str, Any], category: str | None) -> dict[str, Any]:
        """An MCP definition under the name this key sees (namespaced or not)."""
        if not self.api_key.mcp_namespaced_names:
            return definition
        return {**definition, "name": namespaced(definition["name"], category)}

    # -- tools/call ---------------------------------------------------------------------------
    def call_tool(self, request_id: Any, name: str, arguments: dict[str, Any]) -> Reply:
        if name == TOOL_SEARCH_NAME:
            return self.tool_search(request_id, arguments)
        core = {t.name for t in services.core_tools(self.caller, "names", catalog_stamp=self.catalog_stamp)} \
            if self.api_key.mcp_core_tools else set()
        listed = services.visible_tool(self.caller, name, "names", catalog_stamp=self.catalog_stamp) if core else None
        if listed is None or listed.name not in core:  # outside the key's tools reads as no such tool
            return rpc_error(request_id, INVALID_PARAMS, f"Unknown tool: {name}")
        where = f" (its server: {listed.category})" if listed.category else ""
        return self.tool_result(request_id, error=(
            f"toolrouter lists {name} from its catalog but does not run it: call it on the server that "
            f"provides it{where}."))

    def tool_search(self, request_id: Any, arguments: dict[str, Any]) -> Reply:
        query = arguments.get("query")
        limit = arguments.get("limit", 5)
        if isinstance(limit, float) and limit.is_integer():
            limit = int(limit)  # JSON Schema's integer takes 5.0, and the tool's schema says integer
        if not isinstance(query, str) or not query.strip():
            return self.tool_result(request_id, error="tool_search needs a non-empty string 'query'.")
        if len(query) > settings.API_MAX_QUERY_CHARS:
            return self.tool_result(request_id, error=f"'query' may have at most {settings.API_MAX_QUERY_CHARS} characters.")
        if unstorable := unstorable_character(query):
            return self.tool_result(request_id, error=f"'query' contains {unstorable}, which a query may not hold.")
        if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_SEARCH_LIMIT:
            return self.tool_result(request_id, error=f"'limit' must be a whole number from 1 to {MAX_SEARCH_LIMIT}.")
        asked = services.RouteQuery(query=query.strip(), limit=limit, format="mcp")
        try:
            answer = services.route_request(asked, caller=self.caller, catalog_stamp=self.catalog_stamp,
                                            endpoint="tool_search").answer
        except services.RouteInputError as exc:
            return self.tool_result(request_id, error=exc.message)
        found = []
        for definition, match in zip(answer["tools"], answer["matches"], strict=False):
            shown = self.presented(definition, match["category"])
            found.append({**shown, "_meta": {"toolrouter/hint": match["hint"], "toolrouter/category": match["category"],
                                             "toolrouter/score": match["score"]}})
        # The fail-safe's tool_search comes after the matches, without one of its own: never zero tools.
        found += answer["tools"][len(answer["matches"]):]
        structured: dict[str, Any] = {"tools": found, "workflowGuidance": answer["guidance"],
                                      "instruction": answer["instruction"]}
        if "fail_safe" in answer:
            structured["failSafe"] = answer["fail_safe"]
        if "explicit" in answer:
            structured["explicit"] = answer["explicit"]
        return self.tool_result(request_id, structured=structured)

    def tool_result(self, request_id: Any, *, structured: dict[str, Any] | None = None, error: str = "") -> Reply:
        if error:
            result = types.CallToolResult(content=[types.TextContent(text=error)], is_error=True)
        else:
            text = json.dumps(structured, ensure_ascii=False)
            result = types.CallToolResult(content=[types.TextContent(text=text)], structured_content=structured)
        return _result(request_id, "tools/call", self.version, result)


def namespaced(name: str, category: str | None) -> str:
    """`namespace.name`, the namespace being the category as the MCP import prefixes clashing
    names with it (`@acme/notes` -> `acme_notes`); unchanged without a category or when the
    name already carries it."""
    if not category:
        return name
    namespace = sanitize_name(category)
    return name if name.startswith(namespace + ".") else f"{namespace}.{name}"
