"""Request validation: unknown fields, wrong types and out-of-range values are 400s."""
from __future__ import annotations

from typing import Any

from django.conf import settings
from rest_framework import serializers

from engine import FORMATS, MODES, STRATEGIES


class StrictSerializer(serializers.Serializer):
    """Rejects fields it does not know, so a typo ("limt") is an error, not a silent default."""

    def to_internal_value(self, data: Any) -> Any:
        if not isinstance(data, dict):
            raise serializers.ValidationError({"non_field_errors": ["Expected a JSON object."]})
        unknown = sorted(set(data) - set(self.fields))
        if unknown:
            raise serializers.ValidationError({name: ["Unknown field."] for name in unknown})
        return super().to_internal_value(data)


class StrictIntegerField(serializers.IntegerField):
    def to_internal_value(self, data: Any) -> int:
        if isinstance(data, bool) or not isinstance(data, int):
            self.fail("invalid")
        return super().to_internal_value(data)


class StrictFloatField(serializers.FloatField):
    def to_internal_value(self, data: Any) -> float:
        if isinstance(data, bool) or not isinstance(data, (int, float)):
            self.fail("invalid")
        return super().to_internal_value(data)


class StrictBooleanField(serializers.BooleanField):
    def to_internal_value(self, data: Any) -> bool:
        if not isinstance(data, bool):
            self.fail("invalid", input=data)
        return data


class StrictCharField(serializers.CharField):
    def to_internal_value(self, data: Any) -> str:
        if not isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data)


def last_user_text(messages: list[Any]) -> str | None:
    """The text of the last user message; content may be a string or a list of parts."""
    for message in reversed(messages):
        if not isinstance(message, dict) or message.get("role") != "user":
            continue
        content = message.get("content")
        if isinstance(content, str):
            return content
        if isinstance(content, list):
            texts = [p.get("text", "") for p in content if isinstance(p, dict) and p.get("type") in ("text", "input_text")]
            return "\n".join(t for t in texts if isinstance(t, str) and t) or None
    return None


class QueryFields(StrictSerializer):
    query = StrictCharField(required=False, allow_blank=False, trim_whitespace=True)
    limit = StrictIntegerField(required=False, min_value=1, max_value=50, default=5)

    def validate_query(self, value: str) -> str:
        if len(value) > settings.API_MAX_QUERY_CHARS:
            raise serializers.ValidationError(f"Ensure this field has no more than {settings.API_MAX_QUERY_CHARS} characters.")
        return value


class RouteRequestSerializer(QueryFields):
    messages = serializers.ListField(child=serializers.JSONField(), required=False, max_length=1000)
    mode = serializers.ChoiceField(choices=MODES, default="top_k")
    threshold = StrictFloatField(required=False, allow_null=True, min_value=0.0, max_value=1.0, default=None)
    strategy = serializers.ChoiceField(choices=STRATEGIES, default="auto")
    toolset = StrictCharField(required=False, allow_null=True, max_length=128, default=None)
    categories = serializers.ListField(child=StrictCharField(max_length=128), required=False, allow_null=True,
                                       max_length=100, default=None)
    session_id = StrictCharField(required=False, allow_null=True, max_length=128, default=None)
    format = serializers.ChoiceField(choices=FORMATS, default="openai")
    include_core = StrictBooleanField(required=False, default=True)
    explain = StrictBooleanField(required=False, default=False)

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if not attrs.get("query"):
            text = last_user_text(attrs.get("messages") or [])
            if not text or not text.strip():
                raise serializers.ValidationError(
                    {"query": ["Give a query, or messages whose last user message has text."]})
            attrs["query"] = self.validate_query(text.strip())
        if attrs["mode"] == "threshold" and attrs.get("threshold") is None:
            attrs["threshold"] = settings.ROUTE_DEFAULT_THRESHOLD
        return attrs


class ToolSearchRequestSerializer(QueryFields):
    query = StrictCharField(required=True, allow_blank=False, trim_whitespace=True)
    session_id = StrictCharField(required=False, allow_null=True, max_length=128, default=None)
