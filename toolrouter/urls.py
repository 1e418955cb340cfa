from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView

from routing.try_query import try_query

from . import health

urlpatterns = [
    path("admin/try-query/", try_query, name="try-query"),
    path("admin/", admin.site.urls),
    path("dashboard/", include("routing.urls_dashboard")),
    path("healthz", health.healthz, name="healthz"),
    path("readyz", health.readyz, name="readyz"),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("api/v1/", include("api.urls")),
]

handler400 = "api.errors.json_400"
handler404 = "api.errors.json_404"
handler500 = "api.errors.json_500"
