"""JSON parsing with limits: a body too deep or too large is a clear 4xx, never a 500."""
from __future__ import annotations

import json

from django.conf import settings
from rest_framework import exceptions
from rest_framework.parsers import JSONParser

from .errors import ApiError


def depth_of(value, limit: int) -> int:
    """Nesting depth, stopping early once past `limit`."""
    stack = [(value, 1)]
    deepest = 0
    while stack:
        node, depth = stack.pop()
        deepest = max(deepest, depth)
        if deepest > limit:
            return deepest
        if isinstance(node, dict):
            stack.extend((v, depth + 1) for v in node.values())
        elif isinstance(node, list):
            stack.extend((v, depth + 1) for v in node)
    return deepest


class LimitedJSONParser(JSONParser):
    def parse(self, stream, media_type=None, parser_context=None):
        raw = stream.read(settings.API_MAX_BODY_BYTES + 1) if stream is not None else b""
        if len(raw) > settings.API_MAX_BODY_BYTES:
            raise ApiError(413, "body_too_large", f"The body is larger than {settings.API_MAX_BODY_BYTES} bytes.",
                           {"limit_bytes": settings.API_MAX_BODY_BYTES})
        if not raw.strip():
            raise exceptions.ParseError("The body is empty; send a JSON object.")
        try:
            data = json.loads(raw.decode("utf-8"))
        except UnicodeDecodeError as exc:
            raise exceptions.ParseError("The body is not UTF-8.") from exc
        except json.JSONDecodeError as exc:
            raise exceptions.ParseError(
                f"The body is not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}.") from exc
        except RecursionError as exc:
            raise ApiError(400, "json_too_deep", "The JSON is nested too deeply.") from exc
        if depth_of(data, settings.API_MAX_JSON_DEPTH) > settings.API_MAX_JSON_DEPTH:
            raise ApiError(400, "json_too_deep", f"The JSON is nested deeper than {settings.API_MAX_JSON_DEPTH} levels.",
                           {"limit": settings.API_MAX_JSON_DEPTH})
        return data
