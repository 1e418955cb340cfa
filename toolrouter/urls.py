from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView

from api.proxy_views import ChatCompletionsView, MessagesView
from routing.try_query import try_query
from toolcatalog.admin_import import catalog_export, catalog_import

from . import health

urlpatterns = [
    path("admin/try-query/", try_query, name="try-query"),
    path("admin/catalog-import/", catalog_import, name="catalog-import-admin"),
    path("admin/catalog-export/", catalog_export, name="catalog-export-download"),
    path("admin/", admin.site.urls),
    path("dashboard/", include("usage.urls")),
    path("healthz", health.healthz, name="healthz"),
    path("readyz", health.readyz, name="readyz"),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("api/v1/", include("api.urls")),
    # The OpenAI/Anthropic-compatible proxy: a client only changes its base_url.
    path("v1/chat/completions", ChatCompletionsView.as_view(), name="proxy-chat-completions"),
    path("v1/messages", MessagesView.as_view(), name="proxy-messages"),
]

handler400 = "api.errors.json_400"
handler404 = "api.errors.json_404"
handler500 = "api.errors.json_500"
