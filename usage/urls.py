"""Mounted at /dashboard/ by the project urlconf: include("usage.urls")."""
from django.urls import path

from . import dashboard

app_name = "dashboard"

urlpatterns = [
    path("", dashboard.overview, name="overview"),
    path("export.csv", dashboard.export_csv, name="export_csv"),
    path("curation/add", dashboard.add_curation_query, name="add_curation_query"),
    path("curation/dismiss", dashboard.dismiss_curation_query, name="dismiss_curation_query"),
]
