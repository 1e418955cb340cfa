"""POST /api/v1/feedback: which tools the agent really called after a routed turn."""
from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from usage import services as usage

from .errors import ApiError


class FeedbackSerializer(serializers.Serializer):
    request_id = serializers.CharField(max_length=64)
    used_tools = serializers.ListField(child=serializers.CharField(max_length=128), max_length=200, allow_empty=True)
    success = serializers.BooleanField(required=False, allow_null=True, default=None)

    def validate(self, attrs: dict) -> dict:
        # A misspelt field ("used_tool") would otherwise be ignored and the feedback silently wrong.
        unknown = sorted(set(self.initial_data) - set(self.fields))
        if unknown:
            raise serializers.ValidationError({name: ["Unknown field."] for name in unknown})
        return attrs


class FeedbackAnswerSerializer(serializers.Serializer):
    recorded = serializers.BooleanField()
    offered_and_used = serializers.ListField(child=serializers.CharField())
    offered_unused = serializers.ListField(child=serializers.CharField())
    missed = serializers.ListField(child=serializers.CharField())


class FeedbackView(APIView):
    required_scope = "route"
    serializer_class = FeedbackSerializer

    @extend_schema(request=FeedbackSerializer, responses=FeedbackAnswerSerializer)
    def post(self, request: Request) -> Response:
        serializer = FeedbackSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        try:
            feedback = usage.record_feedback(data["request_id"], data["used_tools"], data["success"], request.auth.pk)
        except usage.UnknownRequest as exc:
            raise ApiError(404, "unknown_request", "No request with this request_id was made with this API key.",
                           {"request_id": data["request_id"]}) from exc
        return Response({
            "recorded": True,
            "offered_and_used": feedback.offered_and_used,
            "offered_unused": feedback.offered_unused,
            "missed": feedback.missed,
        })
