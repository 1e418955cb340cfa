"""POST /api/v1/feedback: which tools the agent really called after a routed turn."""
from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from usage import services as usage

from .errors import ApiError
from .schema import with_errors
from .serializers_feedback import FeedbackAnswerSerializer, FeedbackSerializer


class FeedbackView(APIView):
    required_scope = "route"
    serializer_class = FeedbackSerializer

    @extend_schema(request=FeedbackSerializer, responses=with_errors(FeedbackAnswerSerializer, 404),
                   summary="Report which tools the agent called after a routed turn")
    def post(self, request: Request) -> Response:
        serializer = FeedbackSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        try:
            feedback = usage.record_feedback(request_id=data["request_id"], used_tools=data["used_tools"],
                                             missing_tools=data["missing_tools"], success=data["success"],
                                             api_key_id=request.auth.pk)
        except usage.UnknownRequest as exc:
            raise ApiError(404, "unknown_request", "No request with this request_id was made with this API key.",
                           {"request_id": data["request_id"]}) from exc
        return Response({
            "recorded": True,
            "offered_and_used": feedback.offered_and_used,
            "offered_unused": feedback.offered_unused,
            "missed": feedback.missed,
        })
