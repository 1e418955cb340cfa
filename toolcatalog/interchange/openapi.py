"""Import an OpenAPI 3.0 / 3.1 spec: one tool per operation.

An agent calling an HTTP operation fills in one flat argument object, so
path, query and header parameters and the JSON request body are merged into
a single object schema.  Operation tags become categories.
"""

from __future__ import annotations

import re
from typing import Any

from .detect import OPENAPI, describe_keys
from .errors import InterchangeError
from .limits import DocumentLimits
from .model import CatalogBuilder, ParsedCatalog
from .schemas import RefResolver, drop_read_only, flatten_all_of, is_object_schema, openapi30_to_json_schema

HTTP_METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
_PARAM_LOCATIONS = ("path", "query", "header")
# OpenAPI says these header parameters are ignored: the HTTP layer sets them.
_IGNORED_HEADERS = {"accept", "content-type", "authorization"}


def check_openapi(doc: Any) -> None:
    """Raise InterchangeError unless ``doc`` is an OpenAPI 3.x document with paths."""
    version = doc.get("openapi") if isinstance(doc, dict) else None
    if version is None or not str(version).startswith("3.") or not isinstance(doc.get("paths"), dict):
        found = describe_keys(doc)
        if version is not None and not str(version).startswith("3."):
            found = f"openapi: {version!r}"
        raise InterchangeError(
            f"expected an OpenAPI document with 'openapi: 3.x' and 'paths'; found {found}"
        )


def derived_name(method: str, path: str) -> str:
    """``get`` + ``/pets/{petId}`` -> ``get_pets_petId`` (for operations without operationId)."""
    words = re.sub(r"[^A-Za-z0-9]+", "_", path.replace("{", "").replace("}", "")).strip("_")
    return f"{method}_{words}" if words else method


def describe_operation(operation: dict[str, Any], method: str, path: str) -> str:
    """Summary and description joined, or ``METHOD /path`` when both are missing."""
    summary = str(operation.get("summary") or "").strip()
    description = str(operation.get("description") or "").strip()
    if summary and description and not description.startswith(summary):
        return f"{summary}\n\n{description}"
    return description or summary or f"{method.upper()} {path}"


class _OperationConverter:
    """Converts operations of one spec, sharing its ref resolver."""

    def __init__(self, doc: dict[str, Any], limits: DocumentLimits | None = None) -> None:
        self.doc = doc
        self.refs = RefResolver(doc, limits)
        self.is_30 = str(doc.get("openapi")).startswith("3.0")

    def schema(self, schema: Any) -> dict[str, Any]:
        """A self-contained JSON Schema 2020-12 version of an OpenAPI schema."""
        expanded = self.refs.expand(schema if isinstance(schema, dict) else {})
        return drop_read_only(openapi30_to_json_schema(expanded))

    def parameters(self, path_item: dict[str, Any], operation: dict[str, Any]) -> list[dict[str, Any]]:
        """Path-level parameters overridden by operation-level ones (same name and location)."""
        merged: dict[tuple[str, str], dict[str, Any]] = {}
        for raw in [*_as_list(path_item.get("parameters")), *_as_list(operation.get("parameters"))]:
            param = self.refs.deref(raw)
            if isinstance(param, dict) and isinstance(param.get("name"), str):
                merged[(param["name"], str(param.get("in")))] = param
        return list(merged.values())

    def parameter_schema(self, param: dict[str, Any]) -> dict[str, Any]:
        raw = param.get("schema")
        if raw is None and isinstance(param.get("content"), dict) and param["content"]:
            raw = next(iter(param["content"].values())).get("schema")
        schema: dict[str, Any] = self.schema(raw) if raw is not None else {"type": "string"}
        if param.get("description"):
            schema["description"] = str(param["description"]).strip()
        if param.get("deprecated") is True:
            schema["deprecated"] = True
        if "example" in param and "examples" not in schema:
            schema["examples"] = [param["example"]]
        return schema

    def body_schema(self, operation: dict[str, Any]) -> tuple[dict[str, Any] | None, bool]:
        """The request body's schema and whether the body is required."""
        body = self.refs.deref(operation.get("requestBody"))
        if not isinstance(body, dict) or not isinstance(body.get("content"), dict):
            return None, False
        media = _pick_media_type(body["content"])
        if media is None:
            if body["content"]:
                self.refs.warnings.append(f"{operation.get('operationId') or 'an operation'}: request body of "
                                          f"type {', '.join(body['content'])} cannot be expressed as arguments")
            return None, False
        schema = self.schema(self.refs.deref(body["content"][media]).get("schema") or {})
        if body.get("description") and "description" not in schema:
            schema["description"] = str(body["description"]).strip()
        return flatten_all_of(schema), body.get("required") is True

    def convert(self, method: str, path: str, path_item: dict[str, Any],
                operation: dict[str, Any]) -> dict[str, Any]:
        """Raw v1 fields for one operation (validation happens in the builder)."""
        properties: dict[str, Any] = {}
        required: list[str] = []
        for param in self.parameters(path_item, operation):
            location = param.get("in")
            if location not in _PARAM_LOCATIONS:
                continue
            if location == "header" and param["name"].lower() in _IGNORED_HEADERS:
                continue
            key = param["name"] if param["name"] not in properties else f"{location}_{param['name']}"
            properties[key] = self.parameter_schema(param)
            if location == "path" or param.get("required") is True:
                required.append(key)
        self._merge_body(operation, properties, required)
        parameters: dict[str, Any] = {"type": "object", "properties": properties}
        if required:
            parameters["required"] = required
        tags = operation_tags(operation)
        return {
            "name": operation.get("operationId") or derived_name(method, path),
            "description": describe_operation(operation, method, path),
            "category": tags[0] if tags else None,
            "parameters": parameters,
            "usage_hint": self.returns_hint(operation),
            "tags": tags + (["deprecated"] if operation.get("deprecated") is True else []),
        }

    def _merge_body(self, operation: dict[str, Any], properties: dict[str, Any],
                    required: list[str]) -> None:
        """Object bodies merge at top level unless names clash; others go under ``body``."""
        schema, body_required = self.body_schema(operation)
        if schema is None:
            return
        body_props = schema.get("properties", {}) if is_object_schema(schema) else None
        if body_props is not None and not set(body_props) & set(properties):
            properties.update(body_props)
            required += [r for r in schema.get("required", []) if r in body_props and r not in required]
            return
        properties["body"] = schema
        if body_required:
            required.append("body")

    def returns_hint(self, operation: dict[str, Any]) -> str:
        """``Returns: <description of the first 2xx response>``, or empty."""
        responses = operation.get("responses")
        if not isinstance(responses, dict):
            return ""
        for code in sorted(responses):
            if str(code).startswith("2"):
                response = self.refs.deref(responses[code])
                text = str(response.get("description") or "").strip() if isinstance(response, dict) else ""
                return f"Returns: {text}" if text else ""
        return ""


def _as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def operation_tags(operation: dict[str, Any]) -> list[str]:
    """The operation's tag names, stripped; the first one is its category."""
    return [t.strip() for t in _as_list(operation.get("tags")) if isinstance(t, str) and t.strip()]


def _pick_media_type(content: dict[str, Any]) -> str | None:
    """JSON first (incl. ``+json``), then form bodies; None for binary-only bodies."""
    types = list(content)
    if "application/json" in types:
        return "application/json"
    for media in types:
        base = media.split(";")[0].strip().lower()
        if base == "application/json" or base.endswith("+json"):
            return media
    for media in types:
        if media.split(";")[0].strip().lower() in ("application/x-www-form-urlencoded", "multipart/form-data"):
            return media
    return None


def _operations(doc: dict[str, Any], refs: RefResolver):
    for path, raw_item in doc["paths"].items():
        path_item = refs.deref(raw_item)
        if not isinstance(path_item, dict):
            continue
        for method in HTTP_METHODS:
            if method in path_item:
                yield str(path), path_item, method, path_item[method]


def parse_openapi(doc: Any, limits: DocumentLimits | None = None, *, for_ranking: bool = False) -> ParsedCatalog:
    """Import every operation of an OpenAPI 3.x document as a tool (LimitExceeded past `limits`)."""
    check_openapi(doc)
    converter = _OperationConverter(doc, limits)
    builder = CatalogBuilder(OPENAPI, for_ranking=for_ranking)
    used_tags: list[str] = []
    for index, (path, path_item, method, operation) in enumerate(_operations(doc, converter.refs)):
        if not isinstance(operation, dict):
            builder.reject(index, f"{method.upper()} {path}",
                           f"operation must be an object, found {type(operation).__name__}")
            continue
        tool = converter.convert(method, path, path_item, operation)
        if tool["category"]:
            tool["category"] = builder.derived_category(tool["category"], "tag")
        if builder.add_tool(index, tool):
            used_tags += [t for t in operation_tags(operation) if t not in used_tags]
    _add_tag_categories(builder, doc, used_tags)
    builder.result.warnings.extend(converter.refs.warnings)
    return builder.finish()


def _add_tag_categories(builder: CatalogBuilder, doc: dict[str, Any], used: list[str]) -> None:
    """One category per used tag: declared tags first (in spec order), with their descriptions."""
    declared = {str(t["name"]).strip(): str(t.get("description") or "").strip()
                for t in _as_list(doc.get("tags")) if isinstance(t, dict) and t.get("name")}
    for name in [*[t for t in declared if t in used], *[t for t in used if t not in declared]]:
        builder.ensure_category(builder.derived_category(name, "tag"), declared.get(name, ""))
