"""The project's URLs plus the feedback endpoint and the dashboard, until the lead wires them."""
from django.urls import include, path

from api.views_feedback import FeedbackView

urlpatterns = [
    path("api/v1/feedback", FeedbackView.as_view(), name="feedback"),
    path("dashboard/", include("routing.urls_dashboard")),
    path("", include("toolrouter.urls")),
]
