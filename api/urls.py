from django.urls import path
from rest_framework.routers import SimpleRouter

from . import views_catalog, views_route
from .views_feedback import FeedbackView

router = SimpleRouter(trailing_slash=False)
router.register("tools", views_catalog.ToolViewSet, basename="tool")
router.register("categories", views_catalog.CategoryViewSet, basename="category")
router.register("toolsets", views_catalog.ToolsetViewSet, basename="toolset")

urlpatterns = [
    path("route", views_route.RouteView.as_view(), name="route"),
    path("tool-search", views_route.ToolSearchView.as_view(), name="tool-search"),
    path("tool-search/definition", views_route.ToolSearchDefinitionView.as_view(), name="tool-search-definition"),
    path("feedback", FeedbackView.as_view(), name="feedback"),
    path("catalog/import", views_catalog.CatalogImportView.as_view(), name="catalog-import"),
    path("catalog/export", views_catalog.CatalogExportView.as_view(), name="catalog-export"),
    *router.urls,
]
