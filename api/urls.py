from django.urls import path
from rest_framework.routers import SimpleRouter

from . import catalog_views, views
from .filter_views import FilterView
from .views_feedback import FeedbackView

router = SimpleRouter(trailing_slash=False)
router.register("tools", catalog_views.ToolViewSet, basename="tool")
router.register("categories", catalog_views.CategoryViewSet, basename="category")
router.register("toolsets", catalog_views.ToolsetViewSet, basename="toolset")

urlpatterns = [
    path("route", views.RouteView.as_view(), name="route"),
    path("tool-search", views.ToolSearchView.as_view(), name="tool-search"),
    path("tool-search/definition", views.ToolSearchDefinitionView.as_view(), name="tool-search-definition"),
    path("feedback", FeedbackView.as_view(), name="feedback"),
    path("filter", FilterView.as_view(), name="filter"),
    path("catalog/import", catalog_views.CatalogImportView.as_view(), name="catalog-import"),
    path("catalog/export", catalog_views.CatalogExportView.as_view(), name="catalog-export"),
    *router.urls,
]
