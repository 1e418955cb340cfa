from django.contrib import admin
from django.urls import include, path

from api.schema import SchemaView
from gateway.urls import api_urlpatterns as gateway_api_urls
from gateway.urls import proxy_urlpatterns
from routing import learning_pages
from routing.try_query import try_query
from toolcatalog.admin_import import catalog_export, catalog_import

from . import health

admin.site.site_header = "toolrouter administration"
admin.site.site_title = "toolrouter admin"
admin.site.index_title = "Catalog and routing"
admin.site.site_url = None  # no public site: the header links the dashboard (toolrouter/operator_pages.py)

urlpatterns = [
    path("admin/try-query/", try_query, name="try-query"),
    path("admin/catalog-import/", catalog_import, name="catalog-import-admin"),
    path("admin/catalog-export/", catalog_export, name="catalog-export-download"),
    path("admin/suggestions/", learning_pages.suggestion_list, name="learning-suggestions"),
    path("admin/suggestions/refresh", learning_pages.refresh_suggestions, name="learning-suggestions-refresh"),
    path("admin/suggestions/decide", learning_pages.decide_suggestion, name="learning-suggestion-decide"),
    path("admin/catalog-doctor/", learning_pages.catalog_doctor, name="catalog-doctor"),
    path("admin/catalog-doctor/check", learning_pages.check_catalog_now, name="catalog-doctor-check"),
    path("admin/catalog-doctor/relate", learning_pages.link_related, name="catalog-doctor-relate"),
    path("admin/catalog-doctor/disable", learning_pages.disable_tool, name="catalog-doctor-disable"),
    path("admin/", admin.site.admin_view(health.admin_index)),  # the admin's index, with the service's health
    path("admin/", admin.site.urls),
    path("dashboard/", include("usage.urls")),
    path("healthz", health.healthz, name="healthz"),
    path("readyz", health.readyz, name="readyz"),
    path("api/schema/", SchemaView.as_view(), name="api-schema"),
    path("api/v1/", include("api.urls")),
    path("api/v1/", include(gateway_api_urls)),
    # The OpenAI/Anthropic-compatible proxy: a client only changes its base_url.
    *proxy_urlpatterns,
]

handler400 = "api.errors.json_400"
handler404 = "api.errors.json_404"
handler500 = "api.errors.json_500"
