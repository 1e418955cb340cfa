"""OpenAPI documentation of our answers and errors (drf-spectacular), so that clients
generated from /api/schema/ and schema-checking tools know what comes back."""
from __future__ import annotations

from typing import Any

from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema, extend_schema_view, inline_serializer
from rest_framework import serializers


class BearerKeyScheme(OpenApiAuthenticationExtension):
    target_class = "api.auth.BearerKeyAuthentication"
    name = "ApiKey"

    def get_security_definition(self, auto_schema) -> dict:
        return {"type": "http", "scheme": "bearer", "description": "Authorization: Bearer <api key>"}


# An LLM request or answer passed through as it is (filter gateway, proxy, MCP): any JSON object.
# (An empty serializer would be dropped by drf-spectacular, leaving no body at all.)
ANY_OBJECT = OpenApiTypes.OBJECT
# The same as a request body, for views that read the raw body (no parsers to name its media type).
JSON_OBJECT_BODY = {"application/json": ANY_OBJECT}
# A catalog export: an object (toolcatalog/v1) or a list (OpenAI, Anthropic tools).
ANY_JSON = OpenApiTypes.ANY


class ErrorSerializer(serializers.Serializer):
    error = serializers.CharField()
    message = serializers.CharField()
    details = serializers.DictField()


ERROR_DESCRIPTIONS = {
    400: "Invalid request",
    401: "Missing, unknown or revoked API key",
    403: "The key lacks the scope",
    404: "No such object",
    405: "Method not allowed; see Allow",
    406: "Accept does not include application/json",
    409: "Conflict with the catalog's current state",
    413: "Body too large",
    415: "Not a JSON body, or a compressed one",
    429: "Over the key's rate, or too many failed authentications; see Retry-After",
    499: "The client closed the connection before the work was done: nothing was changed",
    502: "The upstream LLM API could not be reached",
    503: "A dependency (database, rate limiter) is unavailable; retry",
    504: "The upstream LLM API did not answer in time",
}
# What any authenticated JSON endpoint may answer, whatever it does.
COMMON_ERRORS = (400, 401, 403, 405, 406, 413, 415, 429, 503)


def errors(*statuses: int, body: Any = ErrorSerializer) -> dict[int, OpenApiResponse]:
    return {status: OpenApiResponse(body, description=ERROR_DESCRIPTIONS[status]) for status in statuses}


ERRORS = errors(*COMMON_ERRORS)


def with_errors(ok: object, *extra: int, ok_status: int = 200) -> dict:
    """The success answer, the errors every endpoint may give, and this endpoint's `extra` ones."""
    return {ok_status: ok, **errors(*sorted({*COMMON_ERRORS, *extra}))}


def catalog_viewset_schema(serializer: type[serializers.Serializer]) -> Any:
    """The errors of a catalog ModelViewSet's operations, for `extend_schema_view`: a named object
    may be missing (404), and deleting one still in use is refused (409)."""
    return extend_schema_view(
        list=extend_schema(responses=with_errors(serializer(many=True))),
        create=extend_schema(responses=with_errors(serializer, ok_status=201)),
        retrieve=extend_schema(responses=with_errors(serializer, 404)),
        update=extend_schema(responses=with_errors(serializer, 404)),
        partial_update=extend_schema(responses=with_errors(serializer, 404)),
        destroy=extend_schema(responses={204: None, **errors(*sorted({*COMMON_ERRORS, 404, 409}))}),
    )


# Serializers whose every field is in every answer (a ModelSerializer renders them all):
# their answer components list every field as required, so typed clients need no Optional.
ALWAYS_COMPLETE = ("Tool", "Category", "Toolset")


def require_complete_answers(result: dict, generator: Any, request: Any, public: bool) -> dict:
    """drf-spectacular postprocessing hook: with request and answer components split, the answer
    components of ALWAYS_COMPLETE and paginated lists' `next`/`previous` are always present."""
    schemas = result.get("components", {}).get("schemas", {})
    for name in ALWAYS_COMPLETE:
        if name in schemas:
            schemas[name]["required"] = list(schemas[name]["properties"])
    for name, schema in schemas.items():
        if name.startswith("Paginated") and name.endswith("List"):
            schema["required"] = list(schema["properties"])
    return result


class JsonRpcErrorSerializer(serializers.Serializer):
    """The JSON-RPC 2.0 error answer /mcp gives to a message it cannot take (MCP's own error shape)."""

    jsonrpc = serializers.CharField()
    id = serializers.JSONField(allow_null=True, help_text="The message's id; null when it could not be read")
    error = inline_serializer("JsonRpcErrorDetail", fields={"code": serializers.IntegerField(),
                                                            "message": serializers.CharField()})
