"""The OpenAI/Anthropic-compatible proxy: POST /v1/chat/completions, POST /v1/responses and POST /v1/messages.

Our key travels in `X-Toolrouter-Key` (then the client's own `Authorization` or
`x-api-key` goes upstream untouched), or as the client's usual credential
(`Authorization: Bearer` / `x-api-key`; then the operator's key is sent upstream:
PROXY_UPSTREAM_API_KEY, or PROXY_ANTHROPIC_UPSTREAM_API_KEY for /v1/messages when it is set).
So a client that only changes its base_url works once the operator configures the
upstream key. Filter options come as `X-Toolrouter-*` headers; the query string goes upstream.
"""
from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any, TypeVar
from urllib.parse import quote

from django.http import HttpResponse, StreamingHttpResponse
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import authentication, exceptions
from rest_framework.request import Request
from rest_framework.views import APIView

from api import throttling
from api.auth import ApiKeyUser, api_key_of, current_key
from api.errors import ApiError
from api.schema import ANY_OBJECT, JSON_OBJECT_BODY, errors
from api.services import hash_key, touch_last_used
from engine import external_name

from . import deferred, proxy
from . import filtering as filter_gateway
from .usage_log import LoggedRequest, deferred_outcome
from .views_filter import (
    OPTION_HEADERS,
    OUTCOME_HEADERS,
    IgnoreAccept,
    filter_input,
    filter_options,
    outcome_headers,
    raw_body,
    run_filter,
)

logger = logging.getLogger(__name__)

KEY_HEADER = "X-Toolrouter-Key"
T = TypeVar("T")
DEFERRED_PROVIDER_TOOL = ("toolrouter's tool search finds named function tools only, so a function without a name or a "
                          "provider's own tool (web_search, mcp, namespace...) cannot wait for it: drop its "
                          "\"defer_loading\", or add OpenAI's own {\"type\": \"tool_search\"} tool, whose search the "
                          "upstream runs.")


class ProxyKeyAuthentication(authentication.BaseAuthentication):
    """Our key from X-Toolrouter-Key, else from Authorization: Bearer, else from x-api-key.

    Sets `request.our_key_header` to the credential header that carried our key (or None),
    so that header is not forwarded upstream.
    """

    def authenticate(self, request):
        failures = throttling.FailedAuthWindow.now(throttling.client_address(request))
        for header, value in self._candidates(request):
            found = current_key(hash_key(value), failures)
            if found.api_key is None or found.api_key.revoked:
                if header == KEY_HEADER.lower():
                    failures.count()
                    raise exceptions.AuthenticationFailed(f"The {KEY_HEADER} key is unknown or revoked.")
                continue  # the client's upstream key, not ours
            touch_last_used(found.api_key)
            request._request.our_key_header = None if header == KEY_HEADER.lower() else header
            return ApiKeyUser(found), found.api_key
        if self._candidates(request):
            failures.count()
        raise exceptions.AuthenticationFailed(
            f"Send your toolrouter key in {KEY_HEADER}, or as 'Authorization: Bearer <key>' / 'x-api-key'.")

    @staticmethod
    def _candidates(request) -> list[tuple[str, str]]:
        headers = request.headers
        found = []
        if headers.get(KEY_HEADER):
            return [(KEY_HEADER.lower(), headers[KEY_HEADER].strip())]
        scheme, _, token = headers.get("Authorization", "").partition(" ")
        if scheme.lower() == "bearer" and token.strip():
            found.append(("authorization", token.strip()))
        if headers.get("x-api-key"):
            found.append(("x-api-key", headers["x-api-key"].strip()))
        return found

    def authenticate_header(self, request) -> str:
        return 'Bearer realm="toolrouter-proxy"'


# The upstream's answer is passed on as it is (its own status and error shape); our own refusals
# come in our error shape before anything goes upstream.
PROXY_RESPONSES = {
    200: OpenApiResponse(ANY_OBJECT, description="The upstream's answer (text/event-stream when the body asks to stream)"),
    **errors(400, 401, 403, 405, 413, 415, 429, 502, 503, 504),
}
# The answer headers _deferred_response() adds when tools were marked "defer_loading".
DEFERRED_HEADERS = [
    OpenApiParameter(name, str, OpenApiParameter.HEADER, response=[200], description=description)
    for name, description in (
        ("X-Toolrouter-Tools-Deferred", "Deferred loading: how many deferred tools no search loaded."),
        ("X-Toolrouter-Tool-Search-Rounds", "Deferred loading: how many rounds of searches the proxy served this turn."),
        ("X-Toolrouter-Upstream-Requests", "Deferred loading: how many upstream requests this answer cost (the provider "
                                           "bills each; the answer's `usage` is their sum)."),
        ("X-Toolrouter-Tools-Found", "Deferred loading: the tools this turn's searches loaded, comma-separated "
                                      "(a comma, %, control character or non-ASCII letter in a name percent-encoded)."),
        ("X-Toolrouter-Tool-Search", "Deferred loading: rounds-exhausted when the model still searched after "
                                     "PROXY_TOOL_SEARCH_MAX_ROUNDS rounds: the answer passed on is that answer "
                                     "without its search calls (other calls kept; with none left, it ends the turn). "
                                     "client-call-first (/v1/responses) when the answer searched beside a call only "
                                     "the client can answer (computer_call, shell_call, mcp_approval_request...): "
                                     "that answer without its search calls, at once, for the client to run its call."),
    )
]


class ProxyView(APIView):
    required_scope = "route"
    kind: proxy.Kind = "openai"
    authentication_classes = [ProxyKeyAuthentication]
    parser_classes: list = []
    content_negotiation_class = IgnoreAccept

    @extend_schema(request=JSON_OBJECT_BODY, responses=PROXY_RESPONSES,
                   parameters=[*OPTION_HEADERS, *OUTCOME_HEADERS, *DEFERRED_HEADERS],
                   summary="Filter tools, then forward upstream")
    def post(self, request: Request) -> HttpResponse | StreamingHttpResponse:
        started = time.perf_counter()
        raw = raw_body(request._request)
        # The path says what the body is: a Responses body need not have the `input` its shape is read by.
        options = replace(filter_options(request, from_query=False), kind=self.kind)
        headers = proxy.upstream_headers(self.kind, request.headers,
                                         getattr(request._request, "our_key_header", None))
        query = request.META.get("QUERY_STRING", "")
        body = filter_input(lambda: filter_gateway.load_body(raw)) if raw.strip() else None
        chosen = filter_gateway.chosen_tools(body) if body is not None else ()  # never deferred
        pinned = tuple({spelling for name in (*options.pinned, *chosen)
                        for spelling in (name, external_name(name))})
        plan = self._deferred_plan(body, pinned, options)
        fail_safe = None
        if plan is not None:  # deferred loading skips the filter, not its checks and limits
            checked = plan.body  # the client's body, as sent
            filter_input(lambda: (filter_gateway.find_tools(checked, options), filter_gateway.find_query(checked, options)))
        else:
            outcome = run_filter(raw, options, body)  # the body read above, not parsed again
            # Without deferred loading, the tools the filter selected (or all of them, passed through) go upstream.
            if not outcome.fail_safe:
                logged = LoggedRequest(outcome, api_key_of(request), "proxy", started)
                with logged.unless_answered():
                    reply = _forwarded(lambda: proxy.forward(
                        self.kind, outcome.body, headers, stream=_wants_stream(outcome.body), query=query))
                return _response(logged.reading(self.kind, reply), outcome)
            # Nothing selected: rather than every tool or none, the tools wait behind the search tool.
            plan = deferred.plan(self.kind, body, pinned=pinned, defer_all=True)
            fail_safe = outcome.fail_safe
        assert plan is not None
        logged = LoggedRequest(deferred_outcome(plan, options), api_key_of(request), "proxy", started)
        with logged.unless_answered():
            turn = _forwarded(lambda: deferred.serve(plan, headers, key_id=api_key_of(request).pk, query=query))
        logged.outcome = replace(deferred_outcome(plan, options, turn), request_id=logged.outcome.request_id)
        logged.log_answer(self.kind, turn.reply.status, turn.reply.content, ignore=plan.search_name)
        return _deferred_response(plan, turn, stream=_wants_stream(raw), fail_safe=fail_safe,
                                  request_id=logged.outcome.request_id)

    def _deferred_plan(self, body: Any, pinned: tuple[str, ...],
                       options: filter_gateway.FilterOptions) -> deferred.Plan | None:
        if isinstance(body, dict) and filter_gateway.upstream_searches_tools(body, options):
            return None  # the client chose OpenAI's own search: its deferred tools go upstream untouched
        if deferred.defers_a_provider_tool(self.kind, body):
            raise ApiError(400, "invalid_request", DEFERRED_PROVIDER_TOOL)
        return deferred.plan(self.kind, body, pinned=pinned)


class ChatCompletionsView(ProxyView):
    kind = "openai"


class MessagesView(ProxyView):
    kind = "anthropic"


class ResponsesView(ProxyView):
    """OpenAI's Responses API: what the OpenAI SDK's `client.responses.create` calls."""

    kind = "responses"


def _forwarded(call: Callable[[], T]) -> T:
    try:
        return call()
    except proxy.UpstreamTimeout as exc:
        raise ApiError(504, "upstream_timeout", str(exc)) from exc
    except proxy.UpstreamUnavailable as exc:
        raise ApiError(502, "upstream_unavailable", str(exc)) from exc


def _json_or_none(raw: bytes) -> Any:
    try:
        return json.loads(raw or b"null")
    except (ValueError, RecursionError):
        return None


def _deferred_response(plan: deferred.Plan, turn: deferred.Turn, *, stream: bool, fail_safe: str | None,
                       request_id: str) -> HttpResponse | StreamingHttpResponse:
    reply = turn.reply
    answer = _json_or_none(reply.content) if 200 <= reply.status < 300 else None
    response: HttpResponse | StreamingHttpResponse
    if stream and isinstance(answer, dict):
        response = StreamingHttpResponse(deferred.as_events(plan.kind, answer), status=reply.status,
                                         content_type="text/event-stream")
        response["Cache-Control"] = "no-cache"
    else:
        response = HttpResponse(reply.content, status=reply.status, content_type=reply.content_type)
    sent = len(plan.loaded) + 1 + len(turn.loaded_deferred)
    headers = {**reply.headers,
               "X-Toolrouter-Request-Id": request_id,  # for POST /api/v1/feedback
               "X-Toolrouter-Tools-Before": str(len(plan.loaded) + len(plan.deferred)),
               "X-Toolrouter-Tools-After": str(sent),
               "X-Toolrouter-Tools-Deferred": str(len(plan.deferred) - len(turn.loaded_deferred)),
               "X-Toolrouter-Tool-Search-Rounds": str(turn.rounds),
               "X-Toolrouter-Upstream-Requests": str(turn.upstream_requests),
               "X-Toolrouter-Tools-Found": header_list(turn.found)}
    if turn.client_call_first:
        headers["X-Toolrouter-Tool-Search"] = "client-call-first"
    elif turn.exhausted:
        headers["X-Toolrouter-Tool-Search"] = "rounds-exhausted"
    if fail_safe:
        headers["X-Toolrouter-Fail-Safe"] = f"{fail_safe}: the tools wait behind {plan.search_name}"
    for name, value in headers.items():
        response[name] = value
    return response


# Printable ASCII but the list's separator and the escape itself: ordinary tool names read as they are.
_HEADER_SAFE = "".join(chr(c) for c in range(0x20, 0x7F) if chr(c) not in ",%")


def header_list(names: list[str]) -> str:
    """Tool names (the client's own text) as one header value: a newline or NUL would break the answer after the
    upstream was paid for, and a comma would split a name, so those and non-ASCII letters are percent-encoded."""
    return ",".join(quote(name, safe=_HEADER_SAFE) for name in names)


def _wants_stream(body: bytes) -> bool:
    try:
        return json.loads(body or b"{}").get("stream") is True
    except (ValueError, AttributeError):
        return False


def _response(reply: proxy.UpstreamReply, outcome: filter_gateway.FilterOutcome) -> HttpResponse | StreamingHttpResponse:
    if reply.chunks is not None:
        response: HttpResponse | StreamingHttpResponse = StreamingHttpResponse(
            reply.chunks, status=reply.status, content_type=reply.content_type)
        response["Cache-Control"] = "no-cache"
        response["X-Accel-Buffering"] = "no"  # nginx: pass events on as they come
    else:
        response = HttpResponse(reply.content, status=reply.status, content_type=reply.content_type)
    for name, value in {**reply.headers, **outcome_headers(outcome)}.items():
        response[name] = value
    return response


class ProxyKeyScheme(OpenApiAuthenticationExtension):
    target_class = "gateway.views_proxy.ProxyKeyAuthentication"
    name = "ProxyKey"

    def get_security_definition(self, auto_schema) -> dict:
        return {"type": "apiKey", "in": "header", "name": "X-Toolrouter-Key",
                "description": "Or our key as the usual Authorization: Bearer / x-api-key credential."}
