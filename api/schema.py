"""OpenAPI documentation of our answers and errors (drf-spectacular), so that clients
generated from /api/schema/ and schema-checking tools know what comes back."""
from __future__ import annotations

from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, inline_serializer
from rest_framework import serializers


class BearerKeyScheme(OpenApiAuthenticationExtension):
    target_class = "api.auth.BearerKeyAuthentication"
    name = "ApiKey"

    def get_security_definition(self, auto_schema) -> dict:
        return {"type": "http", "scheme": "bearer", "description": "Authorization: Bearer <api key>"}


# An LLM request or answer passed through as it is (filter gateway, proxy).
ANY_OBJECT = inline_serializer("AnyObject", fields={})
# A catalog export: an object (toolcatalog/v1) or a list (OpenAI, Anthropic tools).
ANY_JSON = OpenApiTypes.ANY


class ErrorSerializer(serializers.Serializer):
    error = serializers.CharField()
    message = serializers.CharField()
    details = serializers.DictField()


ERRORS = {
    status: OpenApiResponse(ErrorSerializer, description=description)
    for status, description in (
        (400, "Invalid request"),
        (401, "Missing, unknown or revoked API key"),
        (403, "The key lacks the scope"),
        (413, "Body too large"),
        (429, "Over the key's rate; see Retry-After"),
        (503, "A dependency (database, rate limiter) is unavailable; retry"),
    )
}


def with_errors(ok: object) -> dict:
    return {200: ok, **ERRORS}
