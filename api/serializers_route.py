"""POST /api/v1/route, POST /api/v1/tool-search, GET /api/v1/tool-search/definition:
what each takes (validated, strict) and what each answers (documented in /api/schema/)."""
from __future__ import annotations

from typing import Any

from django.conf import settings
from drf_spectacular.utils import extend_schema_serializer
from rest_framework import serializers

from engine import FORMATS, MODES, STRATEGIES
from shared.messages import last_user_text
from shared.storable_text import unstorable_character

from .serializers_base import (
    StrictBooleanField,
    StrictCharField,
    StrictFloatField,
    StrictIntegerField,
    StrictSerializer,
)

# --- in ----------------------------------------------------------------------------------------


class QueryFields(StrictSerializer):
    query = StrictCharField(required=False, allow_blank=False, trim_whitespace=True)
    limit = StrictIntegerField(required=False, min_value=1, max_value=50, default=5)

    def validate_query(self, value: str) -> str:
        if len(value) > settings.API_MAX_QUERY_CHARS:
            raise serializers.ValidationError(f"Ensure this field has no more than {settings.API_MAX_QUERY_CHARS} characters.")
        return value


# Named without "Request": drf-spectacular adds it to request components (COMPONENT_SPLIT_REQUEST).
@extend_schema_serializer(component_name="Route")
class RouteRequestSerializer(QueryFields):
    messages = serializers.ListField(child=serializers.JSONField(), required=False, max_length=1000)
    mode = serializers.ChoiceField(choices=MODES, default="top_k")
    threshold = StrictFloatField(required=False, allow_null=True, min_value=0.0, max_value=1.0, default=None)
    margin = StrictFloatField(required=False, allow_null=True, min_value=0.0, max_value=1.0, default=None,
                              help_text="adaptive mode: keep tools scoring at least (1 - margin) x the best (default 0.15)")
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
            if not text:
                raise serializers.ValidationError(
                    {"query": ["Give a query, or messages with a user message that has text."]})
            if unstorable := unstorable_character(text):
                raise serializers.ValidationError({"messages": [f"The last user text holds {unstorable}."]})
            try:
                attrs["query"] = self.validate_query(text.strip())
            except serializers.ValidationError as exc:
                detail = exc.detail if isinstance(exc.detail, list) else [exc.detail]
                raise serializers.ValidationError({"messages": [f"The last user text: {' '.join(map(str, detail))}"]}) \
                    from exc
        if attrs["mode"] == "threshold" and attrs.get("threshold") is None:
            attrs["threshold"] = settings.ROUTE_DEFAULT_THRESHOLD
        return attrs


@extend_schema_serializer(component_name="ToolSearch")
class ToolSearchRequestSerializer(QueryFields):
    query = StrictCharField(required=True, allow_blank=False, trim_whitespace=True)
    session_id = StrictCharField(required=False, allow_null=True, max_length=128, default=None)


# --- out ---------------------------------------------------------------------------------------

class MatchSerializer(serializers.Serializer):
    name = serializers.CharField()
    score = serializers.FloatField()
    category = serializers.CharField(allow_null=True)
    hint = serializers.CharField(allow_blank=True)
    core = serializers.BooleanField()
    # Present with `explain`: how the tool came in, and the scores behind its rank.
    via = serializers.CharField(required=False, help_text="With explain: rank, core, related, fallback, pinned, "
                                                           "explicit or needed")
    lexical_score = serializers.FloatField(required=False, allow_null=True, help_text="With explain")
    semantic_score = serializers.FloatField(required=False, allow_null=True, help_text="With explain")
    matched_query = serializers.CharField(required=False, allow_null=True,
                                          help_text="With explain: the hypothetical query that matched best")
    category_path = serializers.ListField(child=serializers.CharField(), required=False,
                                          help_text="With explain: the tool's category and its parents")


class StrategySerializer(serializers.Serializer):
    used = serializers.CharField()
    requested = serializers.CharField()
    confidence = serializers.FloatField()
    fallback = serializers.BooleanField()
    reason = serializers.CharField(required=False, help_text="Present when the strategy fell back: why")
    steps = serializers.ListField(child=serializers.DictField(), required=False,
                                  help_text="Present for the hierarchical strategy: its steps")


class TokensSerializer(serializers.Serializer):
    selected = serializers.IntegerField()
    catalog = serializers.IntegerField()
    saved = serializers.IntegerField()
    saved_pct = serializers.FloatField()


class FailSafeSerializer(serializers.Serializer):
    reason = serializers.CharField()
    added = serializers.ListField(child=serializers.CharField(), help_text="tool_search, then the core tools")


class ExplicitSerializer(serializers.Serializer):
    selected = serializers.ListField(child=serializers.CharField(), help_text="Tools the query's select: terms chose")
    notes = serializers.ListField(child=serializers.CharField(), help_text="select: terms that could not be honoured")


class SessionSerializer(serializers.Serializer):
    id = serializers.CharField()
    active_tools = serializers.ListField(child=serializers.CharField(),
                                        help_text="The session's tools, these included")
    stored = serializers.BooleanField(help_text="False when the session store was unavailable")


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
    fail_safe = FailSafeSerializer(required=False, help_text="Present when nothing matched: why, and what was sent instead")
    explicit = ExplicitSerializer(required=False, help_text="Present when the query had select: terms")
    session = SessionSerializer(required=False, help_text="Present when the request named a session_id")


class FoundToolSerializer(serializers.Serializer):
    name = serializers.CharField()
    description = serializers.CharField()
    hint = serializers.CharField(allow_blank=True)


class ToolSearchResponseSerializer(serializers.Serializer):
    tools = FoundToolSerializer(many=True)
    workflowGuidance = serializers.CharField(allow_blank=True)  # noqa: N815 - the seeds' field name
    instruction = serializers.CharField()
    request_id = serializers.CharField()
    failSafe = FailSafeSerializer(required=False)  # noqa: N815 - beside workflowGuidance
    activeTools = serializers.ListField(  # noqa: N815 - beside workflowGuidance
        child=serializers.CharField(), required=False, help_text="Present with a session_id: the session's tools")


class DefinitionResponseSerializer(serializers.Serializer):
    format = serializers.CharField()
    tool = serializers.DictField()
    system_prompt = serializers.CharField()
