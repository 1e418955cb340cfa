"""API paths answer JSON in every mode, and a missing trailing slash is never a 500.

In development (DJANGO_DEBUG=1) Django answers an unknown path with its debug page, which lists
every URL pattern, and an uncaught error with one showing the settings; `handler404`/`handler500`
only apply in production. And CommonMiddleware, asked to add a trailing slash to a POST, raises
(DEBUG) or redirects (a client then loses its body).
"""
from __future__ import annotations

import logging

from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.middleware.common import CommonMiddleware

from api.errors import error_body, json_404, json_500

logger = logging.getLogger(__name__)

API_PREFIXES = ("/api/", "/v1/")
# Our own errors under /api/ that a view rendered otherwise (the schema view answers YAML). Not /v1/:
# the proxy passes the upstream's errors back as they came.
ERROR_CODES = {400: "bad_request", 401: "unauthenticated", 403: "forbidden", 405: "method_not_allowed",
               406: "not_acceptable", 413: "body_too_large", 415: "unsupported_media_type", 429: "rate_limited"}


# Probes read JSON too; a stray slash or a POST must not get the debug page or a CSRF page.
HEALTH_PATHS = ("/healthz", "/readyz")


def answers_json(request: HttpRequest) -> bool:
    return (request.path.startswith(API_PREFIXES) or request.path in ("/api", "/v1")
            or request.path.rstrip("/") in HEALTH_PATHS)


class JsonApiErrorsMiddleware:
    """A 404 on an API path, or on a request other than GET/HEAD that found no view, is JSON; so is an
    uncaught error on an API path."""

    def __init__(self, get_response) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if (response.status_code == 404 and not response.get("Content-Type", "").startswith("application/json")
                and (answers_json(request) or request.method not in ("GET", "HEAD"))):
            return json_404(request)
        if (response.status_code >= 400 and (request.path.startswith("/api/") or request.path in HEALTH_PATHS)
                and not response.get("Content-Type", "").startswith("application/json")):
            code = ERROR_CODES.get(response.status_code, "error")
            converted = JsonResponse(error_body(code, f"{request.method} {request.path}: {code.replace('_', ' ')}."),
                                     status=response.status_code)
            for header in ("Allow", "Retry-After", "WWW-Authenticate"):
                if header in response:
                    converted[header] = response[header]
            return converted
        return response

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if not answers_json(request) or isinstance(exception, Http404):
            return None
        logger.exception("unhandled error on %s", request.path)
        return json_500(request)


class GetOnlySlashCommonMiddleware(CommonMiddleware):
    """APPEND_SLASH for GET and HEAD only: another method without its slash is a 404 (JSON, above),
    not Django's RuntimeError page (DEBUG) nor a redirect that drops the body."""

    def should_redirect_with_slash(self, request: HttpRequest) -> bool:
        return request.method in ("GET", "HEAD") and super().should_redirect_with_slash(request)
