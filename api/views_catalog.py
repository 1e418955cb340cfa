"""Catalog management endpoints (scope `catalog`)."""
from __future__ import annotations

import logging

from django.db.models import ProtectedError
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import viewsets
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from toolcatalog import services
from toolcatalog.interchange import EXPORT_FORMATS
from toolcatalog.models import Category, Tool, Toolset

from .disconnect import gone_check
from .errors import ApiError
from .pagination import CatalogPagination
from .parsers import CatalogImportJSONParser
from .schema import EXPORT_ANSWER, catalog_viewset_schema, with_errors
from .serializers_catalog import (
    IMPORT_BODY,
    IMPORT_FORMATS,
    CategorySerializer,
    ImportQuerySerializer,
    ImportReportSerializer,
    ImportRequestSerializer,
    ToolSerializer,
    ToolsetSerializer,
)

logger = logging.getLogger(__name__)


class CatalogViewSet(viewsets.ModelViewSet):
    required_scope = "catalog"
    lookup_field = "name"
    lookup_value_regex = r"[A-Za-z0-9_.\-]{1,128}"
    pagination_class = CatalogPagination

    def perform_destroy(self, instance) -> None:
        try:
            instance.delete()
        except ProtectedError as exc:
            raise ApiError(409, "in_use", f"{instance} is still used and cannot be deleted.",
                           {"used_by": sorted(str(o) for o in exc.protected_objects)}) from exc


@catalog_viewset_schema(ToolSerializer)
class ToolViewSet(CatalogViewSet):
    queryset = Tool.objects.select_related("category").prefetch_related("related_tools", "hypothetical_queries")
    serializer_class = ToolSerializer


@catalog_viewset_schema(CategorySerializer)
class CategoryViewSet(CatalogViewSet):
    queryset = Category.objects.select_related("parent")
    serializer_class = CategorySerializer


@catalog_viewset_schema(ToolsetSerializer)
class ToolsetViewSet(CatalogViewSet):
    queryset = Toolset.objects.prefetch_related("tools", "categories")
    serializer_class = ToolsetSerializer


def import_options(request: Request) -> dict:
    """The document and the import's options. SPEC's users POST the document itself (an export's
    own output, say), options then in the query; a `{"document": ...}` wrapper carries its options."""
    body = request.data
    if isinstance(body, dict) and "document" in body:
        if request.query_params:
            raise ApiError(400, "invalid_request", "With a {\"document\": ...} body the options go in the body, "
                           "not the query.", {"query": sorted(request.query_params)})
        serializer: ImportRequestSerializer | ImportQuerySerializer = ImportRequestSerializer(data=body)
        serializer.is_valid(raise_exception=True)
        return dict(serializer.validated_data)
    serializer = ImportQuerySerializer(data=request.query_params.dict())
    serializer.is_valid(raise_exception=True)
    return {"document": body, **serializer.validated_data}


class CatalogImportView(APIView):
    required_scope = "catalog"
    parser_classes = [CatalogImportJSONParser]

    @extend_schema(
        request=IMPORT_BODY, responses=with_errors(ImportReportSerializer, 499),
        parameters=[OpenApiParameter("format", str, enum=IMPORT_FORMATS, required=False),
                    OpenApiParameter("server_name", str, required=False),
                    OpenApiParameter("category", str, required=False),
                    OpenApiParameter("dry_run", bool, required=False)],
        summary="Import tools in any supported format",
        description="The body is either `{\"document\": ..., \"format\", \"server_name\", \"category\", "
                    "\"dry_run\"}` (the options in the body, no query parameters), or the document itself "
                    "(a toolcatalog/v1 export, an OpenAI or Anthropic tools list, an MCP tools/list answer, "
                    "Gemini function declarations, a Bedrock toolConfig, an OpenAPI spec: any JSON without a "
                    "top-level `document` key), its options then as the query parameters below.",
    )
    def post(self, request: Request) -> Response:
        data = import_options(request)
        try:
            report = services.import_any(data["document"], format=data["format"], server_name=data["server_name"],
                                         category=data["category"], dry_run=data["dry_run"],
                                         should_stop=gone_check(request._request))
        except services.ImportAbandoned as exc:
            logger.info("catalog import abandoned: %s", exc)
            raise ApiError(499, "client_closed_request", str(exc)) from exc
        except services.ImportLimitError as exc:
            raise ApiError(413 if exc.is_size else 400, "document_too_large" if exc.is_size else "document_too_deep",
                           str(exc), {"limit": exc.setting, "allowed": exc.allowed}) from exc
        except services.CatalogImportError as exc:
            raise ApiError(400, "invalid_catalog", str(exc), {"format": data["format"], "category": data["category"]}) from exc
        return Response(report)


class CatalogExportView(APIView):
    required_scope = "catalog"

    @extend_schema(parameters=[OpenApiParameter("format", str, enum=list(EXPORT_FORMATS), default="toolcatalog/v1")],
                   responses=with_errors(EXPORT_ANSWER, 409), summary="Export the catalog")
    def get(self, request: Request) -> Response:
        fmt = request.query_params.get("format", "toolcatalog/v1")
        try:
            return Response(services.export(format=fmt))
        except services.CatalogExportError as exc:
            if fmt not in EXPORT_FORMATS:
                raise ApiError(400, "invalid_request", str(exc), {"format": fmt}) from exc
            # Rows stored before today's rules (e.g. a tool named "-"): the admin lists them.
            raise ApiError(409, "catalog_not_exportable", str(exc), {"format": fmt}) from exc
