"""The admin's catalog import page (upload or paste, preview, import) and export downloads.

Both go through the same services as the API and the management commands.
"""
from __future__ import annotations

import json
from typing import Any

from django import forms
from django.contrib import admin
from django.contrib.admin.views.decorators import staff_member_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from . import services
from .interchange import EXPORT_FORMATS, FORMATS

EXPORT_FILENAMES = {"toolcatalog/v1": "catalog.toolcatalog-v1.json", "openai": "catalog.openai-tools.json",
                    "anthropic": "catalog.anthropic-tools.json", "mcp": "catalog.mcp-tools-list.json"}


class ImportForm(forms.Form):
    file = forms.FileField(required=False, help_text="JSON or YAML.")
    text = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 12, "cols": 100}),
                           help_text="…or paste the document here.")
    format = forms.ChoiceField(choices=[("", "detect automatically"), *[(f, f) for f in FORMATS]], required=False)
    server_name = forms.CharField(required=False, max_length=128,
                                  help_text="MCP: the server's name, used as the category and name prefix.")

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        upload = data.get("file")
        if upload:
            try:
                data["text"] = upload.read().decode("utf-8")
            except UnicodeDecodeError:
                raise forms.ValidationError("The file is not UTF-8 text.") from None
        if not (data.get("text") or "").strip():
            raise forms.ValidationError("Upload a file or paste a document.")
        return data


@staff_member_required
def catalog_import(request: HttpRequest) -> HttpResponse:
    """GET shows the form; POST with action=preview runs a dry run, action=import imports."""
    form = ImportForm(request.POST or None, request.FILES or None)
    context = {**admin.site.each_context(request), "title": "Import tools", "form": form,
               "export_formats": EXPORT_FORMATS}
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        # The document travels on in the text box, so "Import" after "Preview" needs no re-upload.
        shown = request.POST.copy()
        shown["text"] = data["text"]
        context["form"] = form = ImportForm(shown)
        form.is_valid()
        try:
            context["report"] = services.import_any(data["text"], format=data["format"],
                                                    server_name=data["server_name"],
                                                    dry_run=request.POST.get("action") != "import")
        except services.CatalogImportError as exc:
            form.add_error(None, f"Nothing was imported: {exc}")
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
