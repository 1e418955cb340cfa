"""OpenAPI documentation of our answers and errors (drf-spectacular), so that clients
generated from /api/schema/ and schema-checking tools know what comes back."""
from __future__ import annotations

import copy
from collections.abc import Iterable
from typing import Any

from drf_spectacular.extensions import OpenApiAuthenticationExtension, OpenApiSerializerExtension
from drf_spectacular.plumbing import ResolvedComponent
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema, extend_schema_view, inline_serializer
from drf_spectacular.views import SpectacularAPIView
from rest_framework import serializers
from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.renderers import BaseRenderer, JSONRenderer
from rest_framework.request import Request

from engine import CATALOG_NAME_MAX
from toolcatalog.interchange import EXPORT_FORMATS

from .errors import ApiError


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

# A catalog name as a request may give it (engine/names.py CATALOG_NAME_RE): the same names, written
# without its lookahead so that a schema tool with a plainer regex dialect reads it too.
# (Surrounding whitespace, which the server trims, is left out, as drf-spectacular's maxLength does.)
CATALOG_NAME_SCHEMA = {"type": "string", "pattern": "^[_.-]*[A-Za-z0-9][A-Za-z0-9_.-]*$",
                       "minLength": 1, "maxLength": CATALOG_NAME_MAX}

# --- GET /api/v1/catalog/export: one shape per `?format=` (toolcatalog/services/exporting.py).
_STRING_LIST = {"type": "array", "items": {"type": "string"}}
_JSON_SCHEMA = {"type": "object", "description": "A JSON Schema object"}
_V1_CATEGORY = {"type": "object", "required": ["name"], "properties": {
    "name": {"type": "string"}, "description": {"type": "string"}, "keywords": _STRING_LIST,
    "workflow_hint": {"type": "string"}, "parent": {"type": "string", "nullable": True}, "enabled": {"type": "boolean"}}}
_V1_TOOL = {"type": "object", "required": ["name", "description"], "properties": {
    "name": {"type": "string"}, "description": {"type": "string"}, "category": {"type": "string", "nullable": True},
    "parameters": _JSON_SCHEMA, "hypothetical_queries": _STRING_LIST, "usage_hint": {"type": "string"},
    "related_tools": _STRING_LIST, "core": {"type": "boolean"}, "enabled": {"type": "boolean"}, "tags": _STRING_LIST,
    "source": {"type": "string"}}}
EXPORT_FORMAT_SCHEMAS: dict[str, dict] = {
    "toolcatalog/v1": {"type": "object", "required": ["format", "categories", "tools"], "properties": {
        "format": {"type": "string", "enum": ["toolcatalog/v1"]},
        "categories": {"type": "array", "items": _V1_CATEGORY}, "tools": {"type": "array", "items": _V1_TOOL}}},
    "openai": {"type": "array", "items": {"type": "object", "required": ["type", "function"], "properties": {
        "type": {"type": "string", "enum": ["function"]},
        "function": {"type": "object", "required": ["name", "description", "parameters"], "properties": {
            "name": {"type": "string"}, "description": {"type": "string"}, "parameters": _JSON_SCHEMA}}}}},
    "anthropic": {"type": "array", "items": {"type": "object", "required": ["name", "description", "input_schema"],
                                             "properties": {"name": {"type": "string"},
                                                            "description": {"type": "string"},
                                                            "input_schema": _JSON_SCHEMA}}},
    "mcp": {"type": "object", "required": ["tools"], "properties": {"tools": {"type": "array", "items": {
        "type": "object", "required": ["name", "description", "inputSchema"], "properties": {
            "name": {"type": "string"}, "description": {"type": "string"}, "inputSchema": _JSON_SCHEMA,
            "annotations": {"type": "object"}}}}}},
    "gemini": {"type": "array", "maxItems": 1, "items": {"type": "object", "required": ["functionDeclarations"],
                                                         "properties": {"functionDeclarations": {"type": "array", "items": {
        "type": "object", "required": ["name", "description", "parametersJsonSchema"], "properties": {
            "name": {"type": "string"}, "description": {"type": "string"}, "parametersJsonSchema": _JSON_SCHEMA}}}}}},
    "bedrock": {"type": "object", "required": ["tools"], "properties": {"tools": {"type": "array", "items": {
        "type": "object", "required": ["toolSpec"], "properties": {"toolSpec": {
            "type": "object", "required": ["name", "inputSchema"], "properties": {
                "name": {"type": "string"}, "description": {"type": "string"},
                "inputSchema": {"type": "object", "required": ["json"], "properties": {"json": _JSON_SCHEMA}}}}}}}}},
}
# --- POST /api/v1/catalog/import: the body's second form (api/views_catalog.py import_options), beside
# the `{"document": ...}` wrapper. Any JSON object without a top-level `document` key, or any list: the
# importer tells the format from the content (or `?format=`), so no narrower shape would be the truth.
IMPORT_DOCUMENT_SCHEMA = {
    "description": "The document itself, its options as the query parameters: a toolcatalog/v1 document (what "
                   "GET /api/v1/catalog/export answers), an OpenAI or Anthropic tools list, an MCP tools/list "
                   "answer, Gemini function declarations, a Bedrock toolConfig, an OpenAPI 3 spec. An object "
                   "with a top-level `document` key is the wrapper form; a string is the document as JSON or "
                   "YAML text.",
    "oneOf": [{"type": "object", "not": {"required": ["document"]}}, {"type": "array", "items": {}},
              {"type": "string"}],
}


# drf-spectacular requires a body whose component has required fields; the import's two forms, a
# oneOf, have none of their own, though an empty body is neither.
REQUIRED_BODIES = {"#/components/schemas/ImportBodyRequest"}


class ImportDocumentScheme(OpenApiSerializerExtension):
    target_class = "api.serializers_catalog.ImportDocumentSerializer"

    def map_serializer(self, auto_schema: Any, direction: Any) -> dict:
        return copy.deepcopy(IMPORT_DOCUMENT_SCHEMA)


# anyOf, not oneOf: an empty catalog's OpenAI and Anthropic lists are the same `[]`.
EXPORT_ANSWER = OpenApiResponse(
    {"anyOf": [{"title": fmt, **EXPORT_FORMAT_SCHEMAS[fmt]} for fmt in EXPORT_FORMATS]},
    description="The catalog in `?format=`: one alternative per format, titled by it (gemini's is the `tools` of a "
                "generateContent request, bedrock's a Converse toolConfig)")


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
    503: "A dependency (database, rate limiter, request log) is unavailable; retry",
    504: "The upstream LLM API did not answer in time",
}
# What any authenticated JSON endpoint may answer, whatever it does.
COMMON_ERRORS = (400, 401, 403, 405, 406, 413, 415, 429, 503)


# Answer headers of some statuses; the 503s of the rate limiter give the wait in details.retry_after_seconds.
RETRY_AFTER = {"schema": {"type": "integer", "minimum": 1}, "description": "Seconds to wait before retrying"}
STATUS_HEADERS = {
    "429": {"Retry-After": {**RETRY_AFTER, "description": "Seconds to wait before retrying (always sent by "
                                                          "toolrouter; the proxy relays an upstream's own)"}},
    "503": {"Retry-After": {**RETRY_AFTER, "description": "Seconds to wait before retrying: sent when the "
                                                          "database or the request log is unreachable"}},
}


def errors(*statuses: int, body: Any = ErrorSerializer) -> dict[int, OpenApiResponse]:
    return {status: OpenApiResponse(body, description=ERROR_DESCRIPTIONS[status]) for status in statuses}


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
        destroy=extend_schema(responses=with_errors(None, 404, 409, ok_status=204)),
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


def request_components(result: dict) -> set[str]:
    """The schema components a request body uses, directly or nested."""
    schemas = result.get("components", {}).get("schemas", {})
    found: set[str] = set()
    pending = [operation.get("requestBody", {}) for path in result.get("paths", {}).values()
               for operation in path.values() if isinstance(operation, dict)]
    while pending:
        node = pending.pop()
        if isinstance(node, list):
            pending.extend(node)
        elif isinstance(node, dict):
            ref = node.get("$ref", "")
            name = ref.removeprefix("#/components/schemas/")
            if ref.startswith("#/components/schemas/") and name not in found:
                found.add(name)
                pending.append(schemas.get(name, {}))
            pending.extend(node.values())
    return found


def serializer_of(generator: Any, component: str) -> object:
    """The serializer a schema component was made from (None for enums and the like)."""
    try:
        return generator.registry[(component, ResolvedComponent.SCHEMA)].object
    except KeyError:
        return None


def answer_component(schemas: dict, generator: Any, request_name: str) -> dict:
    """The answer component a request component was split from (COMPONENT_SPLIT_REQUEST names it
    `{name}Request`, `Patched{name}Request` for PATCH); {} if none."""
    name = request_name.removeprefix("Patched").removesuffix("Request")
    same = type(serializer_of(generator, name)) is type(serializer_of(generator, request_name))
    return schemas.get(name, {}) if same else {}


READ_ONLY_IN_REQUESTS = ("Read-only: a request may carry it, as an object read with GET does; the server never "
                         "writes it from a request.")


def declare_read_only_fields(request_schema: dict, answer_schema: dict) -> None:
    """The answer's read-only fields, which COMPONENT_SPLIT_REQUEST leaves out of the request
    component, declared there as what they are for the server: taken and ignored (readOnly)."""
    properties = request_schema.setdefault("properties", {})
    for field, schema in answer_schema.get("properties", {}).items():
        if schema.get("readOnly") and field not in properties:
            description = " ".join(filter(None, [schema.get("description"), READ_ONLY_IN_REQUESTS]))
            properties[field] = {**copy.deepcopy(schema), "description": description}


def declare_what_requests_may_hold(result: dict, generator: Any, request: Any, public: bool) -> dict:
    """drf-spectacular postprocessing hook: request components say what their serializer refuses.
    - No unknown fields (`additionalProperties: false`) where the serializer sets `refuses_unknown_fields`;
      its answer's read-only fields declared (readOnly) where it sets `accepts_its_read_only_fields`,
      so that an object read with GET and sent back whole is valid under the schema, as for the server.
    - A serializer's `request_field_schemas` (e.g. a catalog name's pattern) added to its fields.
    - The bodies of REQUIRED_BODIES required.
    - The Retry-After header of every 429 and 503 answer."""
    schemas = result.get("components", {}).get("schemas", {})
    for name in request_components(result):
        serializer = serializer_of(generator, name)
        if getattr(serializer, "refuses_unknown_fields", False):
            schemas[name]["additionalProperties"] = False
        if getattr(serializer, "accepts_its_read_only_fields", False):
            declare_read_only_fields(schemas[name], answer_component(schemas, generator, name))
        properties = schemas[name].get("properties", {})
        for field, schema in getattr(serializer, "request_field_schemas", {}).items():
            if field in properties:
                properties[field].update(schema)
    for path in result.get("paths", {}).values():
        for operation in path.values():
            body = operation.get("requestBody", {}) if isinstance(operation, dict) else {}
            if body.get("content", {}).get("application/json", {}).get("schema", {}).get("$ref") in REQUIRED_BODIES:
                body["required"] = True
            responses = operation.get("responses", {}) if isinstance(operation, dict) else {}
            for status, headers in STATUS_HEADERS.items():
                if status in responses:
                    responses[status].setdefault("headers", {}).update(headers)
    return result


SCHEMA_FORMATS = ("json", "yaml")


class SchemaFormatNegotiation(DefaultContentNegotiation):
    """`/api/schema/?format=json` (or `yaml`) picks the schema's format, as `Accept` does. The project
    turns DRF's URL_FORMAT_OVERRIDE off (`?format=` elsewhere names a tool format), so it is read here."""

    def select_renderer(self, request: Request, renderers: Iterable[BaseRenderer],
                        format_suffix: str | None = None) -> tuple[BaseRenderer, str]:
        fmt = request.query_params.get("format")
        if fmt is not None:
            if fmt not in SCHEMA_FORMATS:
                raise ApiError(400, "invalid_request", f"format must be 'json' or 'yaml'; got {fmt!r}.",
                               {"format": fmt, "allowed": list(SCHEMA_FORMATS)})
            renderers = [renderer for renderer in renderers if renderer.format == fmt]
        return super().select_renderer(request, renderers, format_suffix)


class SchemaView(SpectacularAPIView):
    """GET /api/schema/: YAML by default; JSON with `?format=json` or `Accept: application/json`."""

    content_negotiation_class = SchemaFormatNegotiation

    def perform_content_negotiation(self, request: Request, force: bool = False) -> tuple[BaseRenderer, str]:
        if force:  # rendering an error the negotiation itself raised: JSON, as every error under /api/
            return JSONRenderer(), JSONRenderer.media_type
        return super().perform_content_negotiation(request, force)


class JsonRpcErrorSerializer(serializers.Serializer):
    """The JSON-RPC 2.0 error answer /mcp gives to a message it cannot take (MCP's own error shape)."""

    jsonrpc = serializers.CharField()
    id = serializers.JSONField(allow_null=True, help_text="The message's id; null when it could not be read")
    error = inline_serializer("JsonRpcErrorDetail", fields={"code": serializers.IntegerField(),
                                                            "message": serializers.CharField()})
