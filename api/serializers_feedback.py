"""POST /api/v1/feedback: what it takes (strict) and what it answers."""
from __future__ import annotations

from rest_framework import serializers

from .serializers_base import StrictBooleanField, StrictCharField, StrictSerializer


class FeedbackSerializer(StrictSerializer):
    request_id = StrictCharField(max_length=64)
    used_tools = serializers.ListField(child=StrictCharField(max_length=128), max_length=200, allow_empty=True)
    missing_tools = serializers.ListField(
        child=StrictCharField(max_length=128), max_length=200, allow_empty=True, required=False, default=list,
        help_text="Tools the request needed that were not offered.")
    success = StrictBooleanField(required=False, allow_null=True, default=None)


class FeedbackAnswerSerializer(serializers.Serializer):
    recorded = serializers.BooleanField()
    offered_and_used = serializers.ListField(child=serializers.CharField())
    offered_unused = serializers.ListField(child=serializers.CharField())
    missed = serializers.ListField(child=serializers.CharField(),
                                   help_text="Used or reported missing without having been offered.")
