"""The admin's catalog import page (upload or paste, preview, import) and export downloads.

Both go through the same services as the API and the management commands.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from django import forms
from django.contrib import admin
from django.contrib.admin.views.decorators import staff_member_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_GET

from . import services
from .interchange import EXPORT_FORMATS, FORMATS
from .models import Category, Tool

EXPORT_FILENAMES = {"toolcatalog/v1": "catalog.toolcatalog-v1.json", "openai": "catalog.openai-tools.json",
                    "anthropic": "catalog.anthropic-tools.json", "mcp": "catalog.mcp-tools-list.json"}


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
                                                "(OpenAI and Anthropic documents have none, nor have untagged "
                                                "OpenAPI operations).")
    # A file uploaded for a preview travels on here, so "Import" needs no second upload.
    uploaded_text = forms.CharField(required=False, widget=forms.HiddenInput)
    uploaded_name = forms.CharField(required=False, max_length=255, widget=forms.HiddenInput)

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        upload = data.get("file")
        if upload:
            try:
                data["uploaded_text"] = upload.read().decode("utf-8")
            except UnicodeDecodeError:
                raise forms.ValidationError("The file is not UTF-8 text.") from None
            data["uploaded_name"] = upload.name
        if (data.get("text") or "").strip():
            data["document"] = data["text"]  # pasted text wins over an earlier upload
            data["uploaded_text"] = data["uploaded_name"] = ""
        elif (data.get("uploaded_text") or "").strip():
            data["document"] = data["uploaded_text"]
        else:
            raise forms.ValidationError("Upload a file or paste a document.")
        return data


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
    form = ImportForm(request.POST or None, request.FILES or None)
    context = {**admin.site.each_context(request), "title": "Import tools", "form": form,
               "export_formats": EXPORT_FORMATS}
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        # Show the same choices again, with an upload kept in the hidden fields.
        shown = request.POST.copy()
        shown["uploaded_text"], shown["uploaded_name"] = data["uploaded_text"], data["uploaded_name"]
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
    response["Content-Disposition"] = f'attachment; filename="{EXPORT_FILENAMES[fmt]}"'
    return response
