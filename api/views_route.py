"""Route and tool-search: validate, call the routing service, answer."""
from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from routing import services
from routing.meta_tool import tool_search_definition

from .auth import api_key_of, catalog_stamp_of
from .errors import ApiError
from .schema import with_errors
from .serializers_route import (
    DefinitionResponseSerializer,
    RouteRequestSerializer,
    RouteResponseSerializer,
    ToolSearchRequestSerializer,
    ToolSearchResponseSerializer,
)

# Documents the header both answers carry (routing.services.Routed.server_timing).
SERVER_TIMING = OpenApiParameter(
    "Server-Timing", str, OpenApiParameter.HEADER, response=[200],
    description="`model;dur=M, engine;dur=E, service;dur=S` in ms: the query model (0 when the query-vector "
                "cache answered), the engine (ranking and model), the whole route service (`latency_ms`).")


def caller_of(request: Request) -> services.Caller:
    return services.Caller.of_key(api_key_of(request))


def routed(asked: services.RouteQuery, request: Request, endpoint: str) -> services.Routed:
    try:
        return services.route_request(asked, caller=caller_of(request), catalog_stamp=catalog_stamp_of(request),
                                      endpoint=endpoint)
    except services.RouteInputError as exc:
        raise ApiError(400, exc.code, exc.message, exc.details) from exc


class RouteView(APIView):
    required_scope = "route"

    @extend_schema(request=RouteRequestSerializer, responses=with_errors(RouteResponseSerializer),
                   parameters=[SERVER_TIMING], summary="Select the tools a request needs")
    def post(self, request: Request) -> Response:
        serializer = RouteRequestSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = {k: v for k, v in serializer.validated_data.items() if k != "messages"}  # turned into `query`
        outcome = routed(services.RouteQuery(**data), request, "route")
        return Response(outcome.answer, headers={"Server-Timing": outcome.server_timing})


class ToolSearchView(APIView):
    """The backend of the `tool_search` meta-tool (seed 002)."""

    required_scope = "route"

    @extend_schema(request=ToolSearchRequestSerializer, responses=with_errors(ToolSearchResponseSerializer),
                   parameters=[SERVER_TIMING], summary="Backend of the tool_search meta-tool")
    def post(self, request: Request) -> Response:
        serializer = ToolSearchRequestSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        outcome = routed(services.RouteQuery(**serializer.validated_data, format="names"), request, "tool_search")
        answer = outcome.answer
        body = {
            "tools": [{"name": m["name"], "description": description, "hint": m["hint"]}
                      for m, description in zip(answer["matches"], outcome.descriptions)],
            "workflowGuidance": answer["guidance"],
            "instruction": answer["instruction"],
            "request_id": answer["request_id"],
        }
        if "fail_safe" in answer:
            body["failSafe"] = answer["fail_safe"]
        if "session" in answer:
            body["activeTools"] = answer["session"]["active_tools"]
        return Response(body, headers={"Server-Timing": outcome.server_timing})


# The formats an LLM API takes tools in (the meta-tool's MCP form is the MCP door's tools/list).
DEFINITION_FORMATS = ("openai", "responses", "anthropic", "gemini", "bedrock")


class ToolSearchDefinitionView(APIView):
    required_scope = "route"

    @extend_schema(
        parameters=[OpenApiParameter("format", str, enum=list(DEFINITION_FORMATS), default="openai")],
        responses=with_errors(DefinitionResponseSerializer),
        summary="The tool_search meta-tool's definition and a minimal system prompt",
    )
    def get(self, request: Request) -> Response:
        fmt = request.query_params.get("format", "openai")
        if fmt not in DEFINITION_FORMATS:
            raise ApiError(400, "invalid_request", f"format must be one of {', '.join(DEFINITION_FORMATS)}.",
                           {"format": fmt, "allowed": list(DEFINITION_FORMATS)})
        return Response(tool_search_definition(fmt))
