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


class MatchSerializer(serializers.Serializer):
    name = serializers.CharField()
    score = serializers.FloatField()
    category = serializers.CharField(allow_null=True)
    hint = serializers.CharField(allow_blank=True)
    core = serializers.BooleanField()


class StrategySerializer(serializers.Serializer):
    used = serializers.CharField()
    requested = serializers.CharField()
    confidence = serializers.FloatField()
    fallback = serializers.BooleanField()


class TokensSerializer(serializers.Serializer):
    selected = serializers.IntegerField()
    catalog = serializers.IntegerField()
    saved = serializers.IntegerField()
    saved_pct = serializers.FloatField()


class RouteResponseSerializer(serializers.Serializer):
    tools = serializers.ListField(child=serializers.JSONField(), help_text="Definitions in the requested format.")
    matches = MatchSerializer(many=True)
    categories = serializers.ListField(child=serializers.CharField())
    guidance = serializers.CharField(allow_blank=True)
    instruction = serializers.CharField()
    strategy = StrategySerializer()
    tokens = TokensSerializer()
    request_id = serializers.CharField()
    latency_ms = serializers.FloatField()


class FoundToolSerializer(serializers.Serializer):
    name = serializers.CharField()
    description = serializers.CharField()
    hint = serializers.CharField(allow_blank=True)


class ToolSearchResponseSerializer(serializers.Serializer):
    tools = FoundToolSerializer(many=True)
    workflowGuidance = serializers.CharField(allow_blank=True)  # noqa: N815 - the seeds' field name
    instruction = serializers.CharField()
    request_id = serializers.CharField()


class DefinitionResponseSerializer(serializers.Serializer):
    format = serializers.CharField()
    tool = serializers.DictField()
    system_prompt = serializers.CharField()


class ImportReportSerializer(serializers.Serializer):
    format = serializers.CharField()
    dry_run = serializers.BooleanField()
    counts = serializers.DictField(child=serializers.IntegerField())
    created = serializers.ListField(child=serializers.CharField())
    updated = serializers.ListField(child=serializers.CharField())
    unchanged = serializers.ListField(child=serializers.CharField())
    rejected = serializers.ListField(child=serializers.DictField())


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


class ProxyKeyScheme(OpenApiAuthenticationExtension):
    target_class = "api.proxy_views.ProxyKeyAuthentication"
    name = "ProxyKey"

    def get_security_definition(self, auto_schema) -> dict:
        return {"type": "apiKey", "in": "header", "name": "X-Toolrouter-Key",
                "description": "Or our key as the usual Authorization: Bearer / x-api-key credential."}
