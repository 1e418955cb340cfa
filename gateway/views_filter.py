"""POST /api/v1/filter: the filter gateway (scope `route`). The body is the LLM request itself.

Options come as query parameters (`?mode=threshold&threshold=0.6`) or as headers
(`X-Toolrouter-Mode: threshold`); query parameters win. The API key's JSONPaths are the
defaults for `query_path` and `tools_path`.
"""
from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any, TypeVar

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework.negotiation import BaseContentNegotiation
from rest_framework.request import Request
from rest_framework.views import APIView

from api.auth import api_key_of
from api.errors import ApiError
from api.parsers import check_not_encoded
from api.schema import ANY_OBJECT, JSON_OBJECT_BODY, errors
from routing.services import Caller, pinned_tool_names
from toolcatalog.selectors import catalog_version

from . import filtering as filter_gateway
from .usage_log import LoggedRequest

T = TypeVar("T")


class IgnoreAccept(BaseContentNegotiation):
    """These endpoints answer what the LLM API answers, whatever the client's Accept says."""

    def select_parser(self, request, parsers):
        return parsers[0] if parsers else None

    def select_renderer(self, request, renderers, format_suffix=None):
        return renderers[0], renderers[0].media_type


def raw_body(request: HttpRequest) -> bytes:
    """The body as sent, up to LLM_MAX_BODY_BYTES (past it: 413); a compressed one is a 415."""
    check_not_encoded(request.META)
    limit = settings.LLM_MAX_BODY_BYTES
    declared = request.META.get("CONTENT_LENGTH") or "0"
    if declared.isdigit() and int(declared) > limit:
        raise ApiError(413, "body_too_large", f"The body is larger than {limit} bytes.", {"limit_bytes": limit})
    data = request.read(limit + 1)
    if len(data) > limit:
        raise ApiError(413, "body_too_large", f"The body is larger than {limit} bytes.", {"limit_bytes": limit})
    return data


def filter_options(request: Request, *, from_query: bool = True) -> filter_gateway.FilterOptions:
    values = {name: request.headers.get("X-Toolrouter-" + name.replace("_", "-"), "")
              for name in filter_gateway.OPTION_NAMES}
    if from_query:
        unknown = sorted(set(request.query_params) - set(filter_gateway.OPTION_NAMES))
        if unknown:
            raise ApiError(400, "invalid_request", f"Unknown query parameter(s): {', '.join(unknown)}.",
                           {"allowed": list(filter_gateway.OPTION_NAMES)})
        values.update({k: str(v) for k, v in request.query_params.items() if v != ""})
    api_key = api_key_of(request)
    options = filter_input(lambda: filter_gateway.parse_options(values, key_query_path=api_key.filter_query_path,
                                                                key_tools_path=api_key.filter_tools_path))
    caller = Caller.of_key(api_key)
    if caller.bound_toolset_id is None:  # the key's own pins need no catalog read
        return replace(options, pinned=caller.pinned_tools)
    return replace(options, pinned=pinned_tool_names(caller, None, str(catalog_version())))


def outcome_headers(outcome: filter_gateway.FilterOutcome) -> dict[str, str]:
    """What the filter did, for the caller: X-Toolrouter-* answer headers."""
    headers = {
        "X-Toolrouter-Request-Id": outcome.request_id,  # for POST /api/v1/feedback
        "X-Toolrouter-Tools-Before": str(outcome.tools_before),
        "X-Toolrouter-Tools-After": str(outcome.tools_after),
        "X-Toolrouter-Tokens-Saved": str(outcome.tokens_saved),
    }
    if outcome.passthrough:
        headers["X-Toolrouter-Passthrough"] = outcome.passthrough
    if outcome.fail_safe:
        headers["X-Toolrouter-Fail-Safe"] = outcome.fail_safe
    if outcome.strategy:
        headers["X-Toolrouter-Strategy"] = outcome.strategy
    if outcome.fallback:
        headers["X-Toolrouter-Fallback"] = outcome.fallback
        headers["X-Toolrouter-Embeddings-Deferred"] = str(outcome.deferred_embeddings)
    return headers


def filter_input(call: Callable[[], T]) -> T:
    """`call()`, with the filter's refusals (FilterInputError) as the caller's 4xx."""
    try:
        return call()
    except filter_gateway.FilterInputError as exc:
        raise ApiError(exc.status, exc.code, exc.message, exc.details) from exc


def run_filter(raw: bytes, options: filter_gateway.FilterOptions, body: Any = None) -> filter_gateway.FilterOutcome:
    return filter_input(lambda: filter_gateway.filter_request(raw, options, body))


def option_header(name: str) -> str:
    return "X-Toolrouter-" + "-".join(part.capitalize() for part in name.split("_"))


# The answer headers outcome_headers() sets (filter and proxy alike).
OUTCOME_HEADERS = [
    OpenApiParameter(name, str, OpenApiParameter.HEADER, response=[200], description=description)
    for name, description in (
        ("X-Toolrouter-Request-Id", "The request's id, for POST /api/v1/feedback."),
        ("X-Toolrouter-Tools-Before", "How many tools the request had."),
        ("X-Toolrouter-Tools-After", "How many tools were sent on."),
        ("X-Toolrouter-Tokens-Saved", "Estimated tokens the removed tools would have cost."),
        ("X-Toolrouter-Passthrough", "Set when the body went on unchanged: why (empty-body, no-tools, no-query, ...)."),
        ("X-Toolrouter-Fail-Safe", "Set when nothing was selected and every tool was kept: why."),
        ("X-Toolrouter-Strategy", "The ranking strategy used."),
        ("X-Toolrouter-Fallback", "Set when ranking fell back (embedding-budget: BM25, new texts embedded later)."),
        ("X-Toolrouter-Embeddings-Deferred", "With Fallback: how many tool texts are embedded in the background."),
    )
]
# The filter options as request headers; for /api/v1/filter a query parameter of the same name wins.
OPTION_HEADERS = [OpenApiParameter(option_header(name), str, OpenApiParameter.HEADER, required=False,
                                   description=f"The `{name}` filter option.")
                  for name in filter_gateway.OPTION_NAMES]
FILTERED_BODY = OpenApiResponse(ANY_OBJECT, description="The LLM request with only the relevant tools (an empty body "
                                                        "comes back empty)")


class FilterView(APIView):
    required_scope = "route"
    parser_classes: list = []
    content_negotiation_class = IgnoreAccept

    @extend_schema(
        request=JSON_OBJECT_BODY, responses={200: FILTERED_BODY, **errors(400, 401, 403, 405, 413, 415, 429, 503)},
        parameters=[*(OpenApiParameter(name, str, required=False) for name in filter_gateway.OPTION_NAMES),
                    *OPTION_HEADERS, *OUTCOME_HEADERS],
        summary="Filter the tools of an LLM request (OpenAI or Anthropic body) to the relevant few",
    )
    def post(self, request: Request) -> HttpResponse:
        started = time.perf_counter()
        options = filter_options(request)
        outcome = run_filter(raw_body(request._request), options)
        LoggedRequest(outcome, api_key_of(request), "filter", started).log()
        content_type = "application/json" if outcome.body.strip() else request.content_type or "application/json"
        response = HttpResponse(outcome.body, content_type=content_type)
        for name, value in outcome_headers(outcome).items():
            response[name] = value
        return response
