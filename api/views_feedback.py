"""POST /api/v1/feedback: which tools the agent really called after a routed turn."""
from __future__ import annotations

import math

from django.conf import settings
from drf_spectacular.utils import extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from usage import services as usage

from .errors import ApiError, error_body
from .schema import with_errors
from .serializers_feedback import FeedbackAnswerSerializer, FeedbackSerializer


class FeedbackView(APIView):
    required_scope = "route"
    serializer_class = FeedbackSerializer

    @extend_schema(request=FeedbackSerializer, responses=with_errors(FeedbackAnswerSerializer, 404, 503),
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
        except usage.RequestLogUnreadable:
            return request_log_unreadable(data["request_id"])
        return Response({
            "recorded": True,
            "offered_and_used": feedback.offered_and_used,
            "offered_unused": feedback.offered_unused,
            "missed": feedback.missed,
        })


def request_log_unreadable(request_id: str) -> Response:
    """503, not 404: the request may still wait in Redis or in another web process, so the client
    should send its feedback again once the web processes have retried Redis."""
    seconds = max(1, math.ceil(settings.USAGE_REDIS_RETRY_SECONDS))
    body = error_body("request_log_unavailable",
                      "The request log cannot be read right now, so this request_id cannot be looked up; "
                      "send the feedback again shortly.",
                      {"request_id": request_id, "retry_after_seconds": seconds})
    return Response(body, status=503, headers={"Retry-After": str(seconds)})
