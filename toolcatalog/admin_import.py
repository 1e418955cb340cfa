"""The admin's catalog import page (upload or paste, preview, import) and export downloads.

Both go through the same services as the API and the management commands.
"""
from __future__ import annotations

import json
import secrets
from dataclasses import dataclass
from typing import Any

import redis
from django import forms
from django.conf import settings
from django.contrib import admin
from django.contrib.admin.views.decorators import staff_member_required
from django.core.exceptions import RequestDataTooBig
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_GET

from shared.redis_client import get_redis

from . import services
from .interchange import EXPORT_FORMATS, FORMATS
from .models import Category, Tool

EXPORT_FILENAMES = {"toolcatalog/v1": "catalog.toolcatalog-v1.json", "openai": "catalog.openai-tools.json",
                    "anthropic": "catalog.anthropic-tools.json", "mcp": "catalog.mcp-tools-list.json",
                    "gemini": "catalog.gemini-tools.json", "bedrock": "catalog.bedrock-tool-config.json"}


class ImportForm(forms.Form):
    file = forms.FileField(required=False, help_text="JSON or YAML.")
    text = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 12, "class": "import-text"}),
                           help_text="…or paste the document here.")
    format = forms.ChoiceField(choices=[("", "detect automatically"), *[(f, f) for f in FORMATS]], required=False)
    server_name = forms.CharField(required=False, max_length=128,
                                  help_text="MCP: the server's name, used as the category and name prefix.")
    category = forms.ModelChoiceField(queryset=Category.objects.all(), required=False, to_field_name="name",
                                      empty_label="(none: keep the document's)",
                                      help_text="For the tools the document leaves without a category "
                                                "(OpenAI, Anthropic, Gemini and Bedrock documents have none, nor "
                                                "have untagged OpenAPI operations).")
    # A file uploaded for a preview is kept in Redis (`keep_upload`); its token travels on here,
    # so "Import" needs no second upload.
    upload_token = forms.CharField(required=False, max_length=64, widget=forms.HiddenInput)
    uploaded_name = forms.CharField(required=False, max_length=255, widget=forms.HiddenInput)
    uploaded_bytes = forms.IntegerField(required=False, min_value=0, widget=forms.HiddenInput)

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        data["new_upload"] = False
        upload = data.get("file")
        if upload:
            try:
                data["document"] = upload.read().decode("utf-8")
            except UnicodeDecodeError:
                raise forms.ValidationError("The file is not UTF-8 text.") from None
            data.update(new_upload=True, uploaded_name=upload.name, uploaded_bytes=upload.size)
        if (data.get("text") or "").strip():
            data["document"] = data["text"]  # pasted text wins over an earlier upload
            data.update(new_upload=False, upload_token="", uploaded_name="", uploaded_bytes=None)
        elif data["new_upload"]:
            pass
        elif data.get("upload_token"):
            data["document"] = kept_upload(data["upload_token"])
            if data["document"] is None:
                raise forms.ValidationError("The file uploaded for the preview is no longer kept (it is kept for an "
                                            "hour, in Redis): choose it again.")
        else:
            raise forms.ValidationError("Upload a file or paste a document.")
        return data


KEPT_UPLOAD_PREFIX = "toolrouter:import-upload:"
KEPT_UPLOAD_SECONDS = 3600


def keep_upload(text: str) -> str:
    """Keep an uploaded document between its preview and its import; "" when Redis cannot.

    Kept on the server, not in a hidden form field: a field past DATA_UPLOAD_MAX_MEMORY_SIZE
    (2.5 MB) made "Import" a 400 for a file its preview had read."""
    token = secrets.token_urlsafe(24)
    try:
        get_redis().set(KEPT_UPLOAD_PREFIX + token, text.encode("utf-8"), ex=KEPT_UPLOAD_SECONDS)
    except redis.RedisError:
        return ""
    return token


def kept_upload(token: str) -> str | None:
    try:
        kept = get_redis().get(KEPT_UPLOAD_PREFIX + token)
    except redis.RedisError:
        return None
    return kept.decode("utf-8") if isinstance(kept, bytes) else kept


@dataclass
class ReportRow:
    outcome: str
    kind: str
    name: str
    reason: str = ""
    url: str | None = None


def report_rows(report: dict[str, Any]) -> list[ReportRow]:
    """The report as one table, each row naming its kind and linking to the object (when it exists)."""
    rows = []
    for outcome in ("created", "updated", "unchanged"):
        for entry in report[outcome]:
            kind, _, name = entry.partition(":") if entry.startswith("category:") else ("tool", "", entry)
            rows.append(ReportRow(outcome, kind, name))
    rows += [ReportRow("rejected", r["kind"], r["name"], r["reason"]) for r in report["rejected"]]
    rows += [ReportRow("kept", k["kind"], k["name"], f"{', '.join(k['fields'])}: {k['reason']}") for k in report["kept"]]
    for kind, model in (("tool", Tool), ("category", Category)):
        names = [row.name for row in rows if row.kind == kind]
        ids = dict(model._default_manager.filter(name__in=names).values_list("name", "pk"))
        for row in rows:
            if row.kind == kind and row.name in ids:
                row.url = reverse(f"admin:toolcatalog_{kind}_change", args=[ids[row.name]])
    return rows


@staff_member_required
def catalog_import(request: HttpRequest) -> HttpResponse:
    """GET shows the form; POST with action=preview runs a dry run, action=import imports."""
    context = {**admin.site.each_context(request), "title": "Import tools", "export_formats": EXPORT_FORMATS}
    try:
        form = ImportForm(request.POST or None, request.FILES or None)
    except RequestDataTooBig:
        context.update(form=ImportForm(), request_error=(
            f"Nothing was imported: pasted text is limited to {settings.DATA_UPLOAD_MAX_MEMORY_SIZE:,} bytes here; "
            "upload a larger document as a file."))
        return render(request, "toolcatalog/import.html", context, status=413)
    context["form"] = form
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        # Show the same choices again, with a new upload kept for "Import".
        shown = request.POST.copy()
        if data["new_upload"]:
            shown["upload_token"] = keep_upload(data["document"])
        shown["uploaded_name"], shown["uploaded_bytes"] = data["uploaded_name"], data["uploaded_bytes"] or ""
        if data["new_upload"] and not shown["upload_token"]:
            shown["uploaded_name"] = ""  # not kept: "Import" needs the file again
        context["form"] = form = ImportForm(shown)
        form.is_valid()
        category = data["category"].name if data["category"] else None
        try:
            report = services.import_any(data["document"], format=data["format"], server_name=data["server_name"],
                                         category=category, dry_run=request.POST.get("action") != "import")
        except services.CatalogImportError as exc:
            form.add_error(None, f"Nothing was imported: {exc}")
        else:
            context["report"] = report
            context["rows"] = report_rows(report)
            if not report["dry_run"] and (report["created"] or report["updated"]):
                context["imported_list_url"] = f"{reverse('admin:toolcatalog_tool_changelist')}?o=-6"
    return render(request, "toolcatalog/import.html", context)


@staff_member_required
@require_GET
def catalog_export(request: HttpRequest) -> HttpResponse:
    fmt = request.GET.get("format", "toolcatalog/v1")
    if fmt not in EXPORT_FORMATS:
        return HttpResponse(f"format must be one of {', '.join(EXPORT_FORMATS)}", status=400, content_type="text/plain")
    try:
        exported = services.export(format=fmt)
    except services.CatalogExportError as exc:
        return HttpResponse(str(exc), status=409, content_type="text/plain")
    response = HttpResponse(json.dumps(exported, indent=2, ensure_ascii=False), content_type="application/json")
    filename = EXPORT_FILENAMES.get(fmt, f"catalog.{fmt.replace('/', '-')}.json")  # a format added later
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response
