"""Every error is JSON: {"error": code, "message": for a person, "details": {...}}."""
from __future__ import annotations

import logging
from typing import Any

from django.core.exceptions import PermissionDenied
from django.db import InterfaceError, OperationalError
from django.http import Http404, JsonResponse
from rest_framework import exceptions, status
from rest_framework.response import Response

logger = logging.getLogger(__name__)


class ApiError(exceptions.APIException):
    """An error with its own code, e.g. ApiError(400, "unknown_toolset", "...", {"toolset": name})."""

    def __init__(self, status_code: int, code: str, message: str, details: dict | None = None) -> None:
        super().__init__(detail=message, code=code)
        self.status_code = status_code
        self.code = code
        self.message = message
        self.details = details or {}


CODES = {
    exceptions.ParseError: "invalid_json",
    exceptions.AuthenticationFailed: "unauthenticated",
    exceptions.NotAuthenticated: "unauthenticated",
    exceptions.PermissionDenied: "forbidden",
    exceptions.NotFound: "not_found",
    exceptions.MethodNotAllowed: "method_not_allowed",
    exceptions.NotAcceptable: "not_acceptable",
    exceptions.UnsupportedMediaType: "unsupported_media_type",
    exceptions.Throttled: "rate_limited",
    exceptions.ValidationError: "invalid_request",
}


def error_body(code: str, message: str, details: dict | None = None) -> dict:
    return {"error": code, "message": message, "details": details or {}}


def api_exception_handler(exc, context) -> Response:
    if isinstance(exc, Http404):
        exc = exceptions.NotFound()
    elif isinstance(exc, PermissionDenied):
        exc = exceptions.PermissionDenied()
    if isinstance(exc, ApiError):
        return Response(error_body(exc.code, exc.message, exc.details), status=exc.status_code)
    if isinstance(exc, (OperationalError, InterfaceError)):
        # PostgreSQL restarting or unreachable: a retryable 503, not a 500 (issue 6).
        logger.warning("database unavailable in %s: %s", context.get("view"), exc)
        return Response(error_body("database_unavailable", "The database is not reachable right now; retry shortly."),
                        status=status.HTTP_503_SERVICE_UNAVAILABLE, headers={"Retry-After": "5"})
    # Imported here: rest_framework.views loads our parser, which imports this module.
    from rest_framework.views import exception_handler

    response = exception_handler(exc, context)
    if response is None:
        logger.exception("unhandled error in %s", context.get("view"))
        return Response(error_body("internal_error", "The server failed to answer this request; it was logged."),
                        status=status.HTTP_500_INTERNAL_SERVER_ERROR)
    code = CODES.get(type(exc), getattr(exc, "default_code", "error"))
    details: dict[str, Any]
    if isinstance(exc, exceptions.ValidationError):
        details = exc.detail if isinstance(exc.detail, dict) else {"non_field_errors": exc.detail}
        message = "The request is not valid: " + _first_messages(details)
    else:
        details = {}
        message = str(exc.detail)
    wait = getattr(exc, "wait", None) if isinstance(exc, exceptions.Throttled) else None
    if wait is not None:
        details = {"retry_after_seconds": int(wait + 0.999)}
    response.data = error_body(code, message, details)
    return response


def _first_messages(details: dict) -> str:
    parts = []
    for field, messages in details.items():
        if isinstance(messages, (list, tuple)) and messages:
            first = messages[0]
            parts.append(f"{field}: {first if not isinstance(first, dict) else 'invalid'}")
        elif isinstance(messages, dict):
            parts.append(f"{field}: invalid")
        else:
            parts.append(f"{field}: {messages}")
    return "; ".join(parts)


def json_404(request, exception=None) -> JsonResponse:
    return JsonResponse(error_body("not_found", f"No endpoint at {request.path}."), status=404)


def json_500(request) -> JsonResponse:
    return JsonResponse(error_body("internal_error", "The server failed to answer this request; it was logged."), status=500)


def json_400(request, exception=None) -> JsonResponse:
    return JsonResponse(error_body("bad_request", str(exception) if exception else "Bad request."), status=400)
