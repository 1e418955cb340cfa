"""JSON parsing with limits: a body too deep, too large, or with numbers Python will not read is a
clear 4xx, never a 500."""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.conf import settings
from rest_framework import exceptions
from rest_framework.parsers import JSONParser

from shared.json_input import JsonInputError, loads

from .errors import ApiError


def check_not_encoded(meta: Mapping[str, Any]) -> None:
    """A compressed body is a 415 that says so, not "not UTF-8" once its bytes are read as text."""
    encoding = str(meta.get("HTTP_CONTENT_ENCODING", "")).strip().lower()
    if encoding not in ("", "identity"):
        raise ApiError(415, "unsupported_media_type",
                       f"Content-Encoding {encoding!r} is not supported: send the body uncompressed.")


class LimitedJSONParser(JSONParser):
    def max_depth(self) -> int:
        return settings.API_MAX_JSON_DEPTH

    def parse(self, stream, media_type=None, parser_context=None):
        request = (parser_context or {}).get("request")
        if request is not None:
            check_not_encoded(request.META)
        raw = stream.read(settings.API_MAX_BODY_BYTES + 1) if stream is not None else b""
        if len(raw) > settings.API_MAX_BODY_BYTES:
            raise ApiError(413, "body_too_large", f"The body is larger than {settings.API_MAX_BODY_BYTES} bytes.",
                           {"limit": "API_MAX_BODY_BYTES", "limit_bytes": settings.API_MAX_BODY_BYTES})
        if not raw.strip():
            raise exceptions.ParseError("The body is empty; send a JSON object.")
        try:
            return loads(raw, max_depth=self.max_depth())
        except JsonInputError as exc:
            if exc.code == "invalid_json":
                raise exceptions.ParseError(f"The body is {exc.reason}.") from None
            raise ApiError(400, exc.code, f"The body is {exc.reason}.", exc.details) from None


class CatalogImportJSONParser(LimitedJSONParser):
    """An import's document sits one level down in the body and may nest as deep as a document sent
    as text (IMPORT_MAX_DEPTH; real OpenAPI specs nest past API_MAX_JSON_DEPTH)."""

    def max_depth(self) -> int:
        return settings.IMPORT_MAX_DEPTH + 1
