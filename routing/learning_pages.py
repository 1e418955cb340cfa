"""The admin's learning pages: /admin/suggestions/ and /admin/catalog-doctor/ (staff only).

Both render what a background job stored (the suggestion table, the latest doctor report), so they
stay fast on a large log; their buttons are POST forms with the CSRF token, each calling a service
and returning to the page with a message.
"""
from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from django.conf import settings
from django.contrib import admin, messages
from django.contrib.admin.views.decorators import staff_member_required
from django.db import transaction
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from toolcatalog import services as catalog
from toolcatalog.models import Tool
from toolcatalog.selectors import catalog_version, ids_by_name
from usage import learning_selectors, suggestions
from usage.models import Suggestion, SuggestionKind

from . import doctor, learning

KIND_LABELS = dict(SuggestionKind.choices)
SHORT_LABELS = {SuggestionKind.MISSING: "not offered", SuggestionKind.RANKED_LOW: "ranked low",
                SuggestionKind.CONFIRMED: "confirmed", SuggestionKind.WEAK: "weak match"}


# --- suggestions ---------------------------------------------------------------------------------

@staff_member_required
@require_GET
def suggestion_list(request: HttpRequest) -> HttpResponse:
    kind = request.GET.get("kind") or None
    if kind not in KIND_LABELS:
        kind = None
    counts = learning_selectors.suggestion_counts()
    context = {
        **admin.site.each_context(request),
        "title": "Suggestions from traffic",
        "kind": kind,
        "kinds": [(key, SHORT_LABELS[key], counts.by_kind.get(key, 0)) for key in SHORT_LABELS],
        # Rows link their tool by id: one prefix instead of a URL lookup per row.
        "tool_admin": reverse("admin:toolcatalog_tool_changelist"),
        "counts": counts,
        "pending": learning_selectors.pending_suggestions(kind),
        "decisions": learning_selectors.recent_decisions(),
        "paused": suggestions.learning_paused_reason(),
        "settings": {name: getattr(settings, name) for name in (
            "LEARNING_LOW_RANK", "LEARNING_MIN_CONFIRMATIONS", "LEARNING_MIN_MISSES", "LEARNING_MIN_WEAK_REQUESTS",
            "LEARNING_AUTO_ACCEPT", "LEARNING_AUTO_MIN_REQUESTS", "LEARNING_AUTO_MIN_CLIENTS",
            "LEARNING_AUTO_MAX_PER_TOOL", "USAGE_RETENTION_DAYS")},
    }
    return render(request, "routing/suggestions.html", context)


def _back_to_suggestions(request: HttpRequest) -> HttpResponse:
    kind = request.POST.get("kind")
    url = reverse("learning-suggestions")
    return redirect(f"{url}?kind={kind}" if kind in KIND_LABELS else url)


@staff_member_required
@require_POST
def decide_suggestion(request: HttpRequest) -> HttpResponse:
    """One click: the button pressed names the decision and the suggestion (`accept=<id>` or `reject=<id>`)."""
    decision = "accept" if request.POST.get("accept") else "reject" if request.POST.get("reject") else None
    pk = request.POST.get(decision or "", "")
    if decision is None or not pk.isdigit():
        messages.error(request, "Press Accept or Reject on a suggestion.")
        return _back_to_suggestions(request)
    suggestion = Suggestion.objects.select_related("tool").filter(pk=int(pk)).first()
    if suggestion is None:
        messages.error(request, suggestions.GONE)
        return _back_to_suggestions(request)
    try:
        if decision == "accept":
            query = suggestions.accept(suggestion, user=request.user, via="admin")
            messages.success(request, f"“{query.text}” is now a hypothetical query of {suggestion.tool.name}; "
                                      "it routes once embedded.")
        else:
            suggestions.reject(suggestion, user=request.user, via="admin")
            messages.success(request, f"Rejected “{suggestion.text}” for {suggestion.tool.name}; "
                                      "it will not be proposed again.")
    except suggestions.SuggestionDecisionError as exc:
        messages.error(request, str(exc))
    return _back_to_suggestions(request)


@staff_member_required
@require_POST
def refresh_suggestions(request: HttpRequest) -> HttpResponse:
    report = learning.refresh_suggestions()
    if report.paused:
        messages.warning(request, report.paused)
    else:
        messages.success(request, f"Refreshed from the usage log: {report.proposed} new, {report.updated} updated, "
                                  f"{report.forgotten} gone, {report.auto_accepted} accepted automatically.")
    return _back_to_suggestions(request)


# --- the catalog doctor --------------------------------------------------------------------------

def _with_links(findings: dict[str, Any]) -> dict[str, Any]:
    """The report with each tool's admin link (its change page, or a search if it was deleted since)."""
    names: set[str] = set()
    for pair in findings.get("confusable", []):
        names.update((pair["a"], pair["b"]))
    for item in findings.get("weak_descriptions", []) + findings.get("misrouted_queries", []):
        names.add(item["tool"])
    for group in findings.get("duplicate_names", []):
        names.update(group["tools"])
    names.update(findings.get("never_offered", {}).get("tools", []))
    ids = ids_by_name("tool", names)

    def url(name: str) -> str:
        if name in ids:
            return reverse("admin:toolcatalog_tool_change", args=[ids[name]])
        return reverse("admin:toolcatalog_tool_changelist") + "?" + urlencode({"q": name})

    for pair in findings.get("confusable", []):
        pair["a_url"], pair["b_url"] = url(pair["a"]), url(pair["b"])
    for item in findings.get("weak_descriptions", []) + findings.get("misrouted_queries", []):
        item["url"] = url(item["tool"])
    for group in findings.get("duplicate_names", []):
        group["links"] = [(name, url(name)) for name in group["tools"]]
    never = findings.get("never_offered")
    if never:
        never["links"] = [(name, url(name)) for name in never["tools"]]
    return findings


@staff_member_required
@require_GET
def catalog_doctor(request: HttpRequest) -> HttpResponse:
    report = doctor.latest_report()
    findings = report.findings if report else {}
    context = {
        **admin.site.each_context(request),
        "title": "Catalog doctor",
        "report": report,
        "findings": _with_links(findings),
        "stale": report is not None and report.catalog_version != catalog_version(),
    }
    return render(request, "routing/catalog_doctor.html", context)


@staff_member_required
@require_POST
def check_catalog_now(request: HttpRequest) -> HttpResponse:
    report = doctor.check_catalog()
    messages.success(request, f"Checked catalog version {report.catalog_version} in {report.duration_ms:.0f} ms.")
    return redirect("catalog-doctor")


@staff_member_required
@require_POST
def link_related(request: HttpRequest) -> HttpResponse:
    """Fix for a confusable pair: each becomes a related tool of the other (offered together, with
    their hints saying when to use which)."""
    names = [request.POST.get("a", ""), request.POST.get("b", "")]
    tools = {tool.name: tool for tool in Tool.objects.filter(name__in=names)}
    gone = [name for name in names if name not in tools]
    if gone:
        messages.error(request, f"No tool is named {gone[0]!r} any more (deleted or renamed since the check); "
                                "nothing changed.")
        return redirect(reverse("catalog-doctor") + "#confusable")
    a, b = tools[names[0]], tools[names[1]]
    with transaction.atomic():
        catalog.link_related(a, b)
    messages.success(request, f"{a.name} and {b.name} are now related tools of each other; say in their usage "
                              "hints when to use which.")
    return redirect(reverse("catalog-doctor") + "#confusable")


@staff_member_required
@require_POST
def disable_tool(request: HttpRequest) -> HttpResponse:
    name = request.POST.get("tool", "")
    changed = catalog.set_enabled(Tool.objects.filter(name=name), False)
    if changed:
        messages.success(request, f"Disabled {name}: it is no longer offered.")
    else:
        messages.error(request, f"No enabled tool is named {name!r}.")
    return redirect(reverse("catalog-doctor") + "#" + (request.POST.get("section") or ""))
