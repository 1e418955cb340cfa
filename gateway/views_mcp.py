"""/mcp: the MCP door over streamable HTTP (see gateway/mcp_door.py for the design).

POST carries one JSON-RPC message and is answered with one JSON response (or 202 for a
notification). GET (the optional server-to-client event stream) is 405, as for any method the
view does not define: this server never speaks first. DELETE ends the session named by `Mcp-Session-Id`. The key comes as
`Authorization: Bearer`, with the `route` scope, under the same rate limit as the REST API.
"""
from __future__ import annotations

import json

from django.conf import settings
from django.http import HttpResponse
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework.request import Request
from rest_framework.views import APIView

from api.auth import api_key_of, catalog_stamp_of
from api.errors import ApiError
from api.schema import ANY_OBJECT, JSON_OBJECT_BODY, JsonRpcErrorSerializer, errors

from . import mcp_door
from .views_filter import IgnoreAccept, raw_body

SESSION = OpenApiParameter(mcp_door.SESSION_HEADER, str, OpenApiParameter.HEADER, required=False,
                           description="The session initialize opened (answered in the same header)")
# A message /mcp cannot take is answered in JSON-RPC's error shape (MCP's rule); what is refused
# before the message is read (key, scope, origin, Accept, body size or encoding) in ours.
POST_RESPONSES = {
    200: OpenApiResponse(ANY_OBJECT, description="The JSON-RPC answer (a result, or a JSON-RPC error)"),
    202: OpenApiResponse(None, description="A notification or response: accepted, nothing to answer"),
    400: OpenApiResponse(JsonRpcErrorSerializer, description="Unreadable JSON, a batch, a bad id, or no session"),
    404: OpenApiResponse(JsonRpcErrorSerializer, description="Unknown or expired session: initialize again"),
    **errors(401, 403, 405, 406, 413, 415, 429, 503),
}
DELETE_RESPONSES = {204: OpenApiResponse(None, description="The session ended"),
                    **errors(400, 401, 403, 404, 405, 429, 503)}


class McpView(APIView):
    required_scope = "route"
    parser_classes: list = []
    content_negotiation_class = IgnoreAccept

    def initial(self, request: Request, *args, **kwargs) -> None:
        _check_origin(request)
        super().initial(request, *args, **kwargs)

    @extend_schema(request=JSON_OBJECT_BODY, responses=POST_RESPONSES, parameters=[SESSION],
                   summary="MCP server (streamable HTTP): one JSON-RPC message in, its JSON-RPC answer out")
    def post(self, request: Request) -> HttpResponse:
        accept = request.headers.get("Accept", "")
        if accept and not any(t in accept for t in ("application/json", "*/*", "application/*")):
            raise ApiError(406, "not_acceptable", "Accept must include application/json (and text/event-stream).")
        reply = mcp_door.handle_post(raw_body(request._request), request.headers, api_key_of(request),
                                     catalog_stamp_of(request))
        return _http(reply)

    @extend_schema(responses=DELETE_RESPONSES, parameters=[SESSION], summary="MCP: end the session in Mcp-Session-Id")
    def delete(self, request: Request) -> HttpResponse:
        session_id = request.headers.get(mcp_door.SESSION_HEADER, "")
        if not session_id:
            raise ApiError(400, "invalid_request", f"Send the session to end in {mcp_door.SESSION_HEADER}.")
        if mcp_door.open_session(session_id, api_key_of(request).pk) is None:
            raise ApiError(404, "not_found", "No such session (it may have ended or expired).")
        mcp_door.end_session(session_id)
        return HttpResponse(status=204)


def _check_origin(request: Request) -> None:
    """The spec's guard against DNS rebinding: a browser page may only reach /mcp from an
    origin the operator allows (MCP_ALLOWED_ORIGINS). Clients that are not browsers send none."""
    origin = request.headers.get("Origin")
    allowed = settings.MCP_ALLOWED_ORIGINS
    if origin and "*" not in allowed and origin not in allowed:
        raise ApiError(403, "origin_not_allowed", f"Origin {origin!r} may not use /mcp (see MCP_ALLOWED_ORIGINS).")


def _http(reply: mcp_door.Reply) -> HttpResponse:
    if reply.body is None:
        response = HttpResponse(status=reply.status)
    else:
        response = HttpResponse(json.dumps(reply.body, ensure_ascii=False), status=reply.status,
                                content_type="application/json")
    for name, value in reply.headers.items():
        response[name] = value
    return response
