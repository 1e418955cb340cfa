"""`?limit=&offset=` on the catalog lists (tools, categories, toolsets).

A value that is not a whole number in range is a 400 naming the parameter: DRF's LimitOffsetPagination
falls back to its defaults instead, so a client bug (`limit=abc`, `offset=-5`) silently got the first
page of 100. A `limit` above API_MAX_PAGE_SIZE is still served as a page of API_MAX_PAGE_SIZE, as
before: the answer says so itself (its `next` link carries the limit used, `count` the total)."""
from __future__ import annotations

from typing import Any

from django.conf import settings
from rest_framework import serializers
from rest_framework.pagination import LimitOffsetPagination
from rest_framework.request import Request


def whole_number(raw: str) -> int | None:
    """`raw` as a non-negative integer written in ASCII digits, else None ("+5", " 5", "5.0" are None)."""
    return int(raw) if raw.isascii() and raw.isdigit() else None


class CatalogPagination(LimitOffsetPagination):
    """`?limit=&offset=`: API_PAGE_SIZE objects a page by default, at most API_MAX_PAGE_SIZE;
    the answer is {"count", "next", "previous", "results"}."""

    @property
    def default_limit(self) -> int:  # type: ignore[override]  # read per request: settings may change in tests
        return settings.API_PAGE_SIZE

    @property
    def max_limit(self) -> int:  # type: ignore[override]
        return settings.API_MAX_PAGE_SIZE

    def get_limit(self, request: Request) -> int:
        raw = request.query_params.get(self.limit_query_param)
        if raw is None:
            return self.default_limit
        limit = whole_number(raw)
        if limit is None or limit < 1:
            raise invalid(self.limit_query_param, raw, f"a whole number from 1 (a page holds at most {self.max_limit})")
        return min(limit, self.max_limit)

    def get_offset(self, request: Request) -> int:
        raw = request.query_params.get(self.offset_query_param)
        if raw is None:
            return 0
        offset = whole_number(raw)
        if offset is None:
            raise invalid(self.offset_query_param, raw, "a whole number from 0")
        return offset

    def get_schema_operation_parameters(self, view: Any) -> list[dict[str, Any]]:
        limit, offset = super().get_schema_operation_parameters(view)
        limit["schema"] = {"type": "integer", "minimum": 1, "default": self.default_limit}
        limit["description"] = (f"Objects per page, from 1; a larger limit than {self.max_limit} (API_MAX_PAGE_SIZE) "
                                f"gets pages of {self.max_limit}, as `next` shows. Not a whole number: 400.")
        offset["schema"] = {"type": "integer", "minimum": 0, "default": 0}
        offset["description"] = "Objects to skip, from 0. Not a whole number: 400."
        return [limit, offset]


def invalid(parameter: str, raw: str, accepted: str) -> serializers.ValidationError:
    """The 400 every other bad field gets: {"error": "invalid_request", "details": {parameter: [why]}}."""
    return serializers.ValidationError({parameter: [f"Must be {accepted}; got {raw!r}."]})
