"""The operators' usage dashboard: staff only, in the admin's look (it extends admin/base_site.html),
charts drawn here as SVG geometry (no JavaScript of its own, no CDN).

Everything a user typed (queries, tool and client names) reaches the page through the
templates' autoescaping only; the chart helpers below produce numbers and plain strings.
"""
from __future__ import annotations

import csv
import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from datetime import date, datetime
from urllib.parse import urlencode

from django import forms
from django.conf import settings
from django.contrib import admin, messages
from django.contrib.admin.views.decorators import staff_member_required
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse, QueryDict, StreamingHttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_GET, require_POST

from . import learning_card, selectors, services

RANGE_CHOICES = [("24h", "24 h"), ("7d", "7 days"), ("30d", "30 days")]
CHART_WIDTH, CHART_HEIGHT = 640, 190
PLOT_LEFT, PLOT_RIGHT, PLOT_TOP, PLOT_BOTTOM = 52, 10, 12, 26
BAR_ROW_HEIGHT, BAR_LABEL_WIDTH, BAR_WIDTH = 22, 150, 200


# --- chart geometry ----------------------------------------------------------------------------

@dataclass
class Bar:
    x: float
    y: float
    width: float
    height: float
    title: str


@dataclass
class AxisLabel:
    x: float
    y: float
    text: str
    grid_y: float | None = None  # y labels: where their grid line runs


@dataclass
class Line:
    css_class: str
    label: str
    segments: list[str] = field(default_factory=list)  # SVG polyline "points" of numbers only
    dots: list[tuple[float, float, str]] = field(default_factory=list)  # a lone hour has no line to show


@dataclass
class TimeChart:
    title: str
    bars: list[Bar]
    lines: list[Line]
    x_labels: list[AxisLabel]
    y_labels: list[AxisLabel]
    empty: bool
    width: int = CHART_WIDTH
    height: int = CHART_HEIGHT
    plot_left: int = PLOT_LEFT
    plot_right: int = CHART_WIDTH - PLOT_RIGHT
    plot_bottom: int = CHART_HEIGHT - PLOT_BOTTOM
    center_x: int = CHART_WIDTH // 2
    center_y: int = CHART_HEIGHT // 2


@dataclass
class HBarRow:
    label: str
    value_text: str
    y: float
    width: float
    value_x: float


@dataclass
class HBarChart:
    title: str
    rows: list[HBarRow]
    height: int
    width: int = BAR_LABEL_WIDTH + BAR_WIDTH + 80
    label_width: int = BAR_LABEL_WIDTH
    bar_x: int = BAR_LABEL_WIDTH + 6


def _point_label(start: datetime, bucket: str) -> str:
    return start.strftime("%H:%M" if bucket == "hour" else "%b %d")


def _nice_max(value: float) -> float:
    """Round the y-axis top up to 1, 2 or 5 times a power of ten."""
    if value <= 0:
        return 1.0
    magnitude = 10 ** (len(str(int(value))) - 1)
    for step in (1, 2, 5, 10):
        if value <= step * magnitude:
            return float(step * magnitude)
    return float(10 * magnitude)


def _x_positions(count: int) -> tuple[list[float], float]:
    plot_width = CHART_WIDTH - PLOT_LEFT - PLOT_RIGHT
    slot = plot_width / max(count, 1)
    return [PLOT_LEFT + slot * i for i in range(count)], slot


def _y(value: float, top: float) -> float:
    plot_height = CHART_HEIGHT - PLOT_TOP - PLOT_BOTTOM
    return round(CHART_HEIGHT - PLOT_BOTTOM - plot_height * value / top, 1)


def _axis_labels(series: list[selectors.SeriesPoint], bucket: str, top: float, unit: str) -> tuple[list, list]:
    xs, slot = _x_positions(len(series))
    every = max(1, len(series) // 6)
    x_labels = [AxisLabel(round(xs[i] + slot / 2, 1), CHART_HEIGHT - 8, _point_label(series[i].start, bucket))
                for i in range(0, len(series), every)]
    y_labels = [AxisLabel(PLOT_LEFT - 6, _y(value, top) + 4, f"{value:g}{unit}", grid_y=_y(value, top))
                for value in (0, top / 2, top)]
    return x_labels, y_labels


def requests_chart(series: list[selectors.SeriesPoint], bucket: str) -> TimeChart:
    top = _nice_max(max((p.requests for p in series), default=0))
    xs, slot = _x_positions(len(series))
    bars = [
        Bar(round(x + slot * 0.1, 1), _y(p.requests, top), round(slot * 0.8, 1),
            round(_y(0, top) - _y(p.requests, top), 1), f"{_point_label(p.start, bucket)}: {p.requests} requests")
        for x, p in zip(xs, series)
    ]
    x_labels, y_labels = _axis_labels(series, bucket, top, "")
    return TimeChart("Requests", bars, [], x_labels, y_labels, empty=not any(p.requests for p in series))


def latency_chart(series: list[selectors.SeriesPoint], bucket: str) -> TimeChart:
    values = [v for p in series for v in (p.latency_p50_ms, p.latency_p95_ms) if v is not None]
    top = _nice_max(max(values, default=0))
    xs, slot = _x_positions(len(series))
    lines = []
    for attribute, css_class, label in (("latency_p95_ms", "line-p95", "p95"), ("latency_p50_ms", "line-p50", "p50")):
        line, current = Line(css_class, label), list[str]()
        for x, point in zip(xs, series):
            value = getattr(point, attribute)
            if value is None:  # no traffic: break the line rather than draw a false zero
                if current:
                    line.segments.append(" ".join(current))
                current = []
                continue
            cx, cy = round(x + slot / 2, 1), _y(value, top)
            current.append(f"{cx},{cy}")
            line.dots.append((cx, cy, f"{_point_label(point.start, bucket)}: {label} {value:.1f} ms"))
        if current:
            line.segments.append(" ".join(current))
        lines.append(line)
    x_labels, y_labels = _axis_labels(series, bucket, top, " ms")
    return TimeChart("Latency p50 / p95", [], lines, x_labels, y_labels, empty=not values)


def hbar_chart(title: str, items: Iterable[tuple[str, float, str]]) -> HBarChart:
    """items: (label, value, value as text)."""
    items = list(items)
    top = max((value for _, value, _ in items), default=0) or 1
    rows = []
    for i, (label, value, text) in enumerate(items):
        width = round(BAR_WIDTH * value / top, 1)
        rows.append(HBarRow(label, text, BAR_ROW_HEIGHT * i, width, BAR_LABEL_WIDTH + 12 + width))
    return HBarChart(title, rows, height=max(BAR_ROW_HEIGHT * len(rows), BAR_ROW_HEIGHT))


def _percent(share: float | None) -> str:
    return "–" if share is None else f"{share * 100:.1f} %"


# --- the page's parts --------------------------------------------------------------------------

@dataclass
class SummaryCard:
    """One figure at the top of the dashboard. A new card is one more entry in `summary_cards`."""

    title: str
    figure: str
    detail: str
    element_id: str = ""
    unit: str = ""
    warn: bool = False


def _count(n: int, noun: str) -> str:
    return f"{n:,} {noun}{'' if n == 1 else 's'}"


def _ms(value: float | None) -> str:
    return "–" if value is None else f"{value:.1f}"


def _percentile_ms(value: float | None, exact: bool) -> str:
    """A percentile for the card, "≈" when read from the daily histograms; one that reaches their open
    top bucket only says "at least" that bucket's bound (the true figure may be far above it)."""
    top = selectors.LATENCY_BUCKETS_MS[-1]
    if exact or value is None:
        return _ms(value)
    return f"≥ {top:,}" if value >= top else f"≈ {_ms(value)}"


def summary_cards(data: selectors.DashboardData, health: dict) -> list[SummaryCard]:
    totals, feedback = data.totals, data.feedback
    if feedback.feedback:
        success = (f"success {_percent(feedback.success_rate)}" if feedback.success_rate is not None
                   else "no success reported")
        feedback_detail = (f"of {_count(feedback.tools_used, 'tool')} called in {_count(feedback.feedback, 'turn')}"
                           f" with feedback; {success}")
    else:
        feedback_detail = "no feedback in this range"
    buffered = health["buffered_in_redis"]
    return [
        SummaryCard("Requests", f"{totals.requests:,}",
                    f"route {totals.route_requests:,} · tool-search {totals.tool_search_requests:,} · "
                    f"filter {totals.filter_requests:,} · proxy {totals.proxy_requests:,}", element_id="total-requests"),
        SummaryCard("Latency p50 / p95", f"{_percentile_ms(totals.latency_p50_ms, totals.percentiles_exact)} / "
                                         f"{_percentile_ms(totals.latency_p95_ms, totals.percentiles_exact)}",
                    f"mean {_ms(totals.latency_mean_ms)} ms" + ("" if totals.percentiles_exact else
                                                                "; ≈ read from the daily histograms"),
                    element_id="latency", unit="ms"),
        SummaryCard("Tokens saved", f"{totals.tokens_saved:,}",
                    f"{_percent(totals.saved_share)} of {totals.tokens_catalog:,} catalog tokens; "
                    f"{totals.tokens_selected:,} sent", element_id="tokens-saved"),
        SummaryCard("Feedback hit rate", _percent(feedback.hit_rate), feedback_detail, element_id="hit-rate"),
        SummaryCard("Log health", f"{health['dropped_total']:,}",
                    f"buffered: {'Redis down' if buffered is None else buffered} in Redis, "
                    f"{health['buffered_in_process']} in this process",
                    element_id="dropped", unit="dropped", warn=bool(health["dropped_total"] or not health["redis_ok"])),
    ]


@dataclass
class ToolRow:
    name: str
    admin_url: str | None
    usage: selectors.ToolUsage | None = None


def _tool_rows(data: selectors.DashboardData, tools: Iterable[selectors.ToolUsage]) -> list[ToolRow]:
    return [ToolRow(t.tool, _admin_url(data, t.tool), t) for t in tools]


def _admin_url(data: selectors.DashboardData, name: str) -> str | None:
    pk = data.tool_ids.get(name)
    return reverse("admin:toolcatalog_tool_change", args=[pk]) if pk is not None else None


# --- the filter: range, client, auto-refresh ---------------------------------------------------

REFRESH_CHOICES = [(0, "off"), (30, "30 s"), (60, "1 min"), (300, "5 min")]
MAX_CUSTOM_DAYS = 366


class DashboardFilter(forms.Form):
    range = forms.ChoiceField(choices=[*RANGE_CHOICES, ("custom", "custom")], required=False)
    start = forms.DateField(required=False, widget=forms.DateInput(attrs={"type": "date"}), label="From")
    end = forms.DateField(required=False, widget=forms.DateInput(attrs={"type": "date"}), label="to")
    client = forms.CharField(required=False, max_length=128, label="Client (API key)")
    refresh = forms.TypedChoiceField(choices=REFRESH_CHOICES, coerce=int, required=False)

    def clean(self) -> dict:
        data = super().clean() or {}
        start, end = data.get("start"), data.get("end")
        if data.get("range") == "custom" or start or end:
            if not (start and end):
                raise forms.ValidationError("A custom range needs both days (UTC).")
            if start > end:
                raise forms.ValidationError("The range starts after it ends.")
            if start > timezone.now().date():  # UTC, as the days are
                raise forms.ValidationError("The range starts after today (UTC): nothing has been logged there yet.")
            if (end - start).days >= MAX_CUSTOM_DAYS:
                raise forms.ValidationError(f"A custom range spans at most {MAX_CUSTOM_DAYS} days.")
            data["range"] = "custom"
        return data


@dataclass
class Filters:
    range: selectors.UsageRange
    refresh: int
    params: dict[str, str]  # the query string that reproduces this view
    form: DashboardFilter

    def url(self, **changes: object) -> str:
        """This view's URL with some parameters changed (None or "" removes one)."""
        params = {**self.params, **{k: str(v) for k, v in changes.items() if v not in (None, "")}}
        for key, value in changes.items():
            if value in (None, ""):
                params.pop(key, None)
        if params.get("range") != "custom":
            params.pop("start", None)
            params.pop("end", None)
        return f"{reverse('dashboard:overview')}?{urlencode(params)}" if params else reverse("dashboard:overview")


def read_filters(query: QueryDict) -> Filters:
    form = DashboardFilter(query)
    data = form.cleaned_data if form.is_valid() else {}
    key = data.get("range") or selectors.DEFAULT_RANGE
    client = data.get("client") or None
    r = selectors.resolve_range(key, first=data.get("start"), last=data.get("end"), client=client)
    params = {"range": r.key}
    if r.key == "custom":
        params.update(start=r.first_day.isoformat(), end=r.last_day.isoformat())
    if client:
        params["client"] = client
    refresh = data.get("refresh") or 0
    if refresh:
        params["refresh"] = str(refresh)
    return Filters(r, refresh, params, form)


# --- views -------------------------------------------------------------------------------------

@staff_member_required
@require_GET
def overview(request: HttpRequest) -> HttpResponse:
    filters = read_filters(request.GET)
    data = selectors.dashboard_data(filters.range)
    bucket = data.range.bucket
    unfiltered = filters.range if filters.range.client is None else replace(filters.range, client=None)
    context = {
        **admin.site.each_context(request),
        "is_nav_sidebar_enabled": False,  # the dashboard wants the width; the header links the rest
        "title": "Usage dashboard",
        "data": data,
        "filters": filters,
        "presets": [(label, filters.url(range=key), key == data.range.key) for key, label in RANGE_CHOICES],
        "refresh_links": [(label, filters.url(refresh=seconds or None), seconds == filters.refresh)
                          for seconds, label in REFRESH_CHOICES],
        "clients": [c.client for c in selectors.range_clients(unfiltered)] if filters.range.client else
                   [c.client for c in data.clients],
        "cards": summary_cards(data, services.usage_health()),
        "requests_chart": requests_chart(data.series, bucket),
        "latency_chart": latency_chart(data.series, bucket),
        "strategy_chart": hbar_chart("Strategy mix (strategy used)", (
            (s.label, s.count, f"{s.count:,} · {_percent(s.share)}") for s in data.strategies)),
        "tools_chart": hbar_chart("Top tools (offered by ranking)",
                                  ((t.tool, t.offered, f"{t.offered:,}") for t in data.top_tools)),
        "categories_chart": hbar_chart("Top categories (of ranked tools)",
                                       ((name, n, f"{n:,}") for name, n in data.top_categories)),
        "top_tools": _tool_rows(data, data.top_tools),
        "core_tools": _tool_rows(data, data.core_tools),
        "missed_tools": _tool_rows(data, data.missed_tools),
        "never_used": _tool_rows(data, data.never_used),
        "never_offered": [ToolRow(name, _admin_url(data, name)) for name in data.never_offered],
        "curation": curation_rows(data.curation),
        "tool_names": selectors.tool_names(),
        "back": urlencode(filters.params),
        "without_client": filters.url(client=None),
        "retention_days": settings.USAGE_RETENTION_DAYS,
        **learning_card.context(data),
    }
    return render(request, "dashboard/overview.html", context)


class _Echo:
    """csv.writer needs a file; the streaming response needs the lines."""

    def write(self, value: str) -> str:
        return value


FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")


def _csv_cell(value: object) -> object:
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, (list, dict)):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, str) and value.startswith(FORMULA_PREFIXES):
        return "'" + value  # a query opened in a spreadsheet must not run as a formula
    return value


def _csv_lines(r: selectors.UsageRange) -> Iterator[str]:
    writer = csv.writer(_Echo())
    yield writer.writerow(selectors.EXPORT_COLUMNS)
    for row in selectors.export_rows(r):
        yield writer.writerow([_csv_cell(value) for value in row])


@staff_member_required
@require_GET
def export_csv(request: HttpRequest) -> HttpResponse | StreamingHttpResponse:
    filters = read_filters(request.GET)
    if filters.form.errors:  # the page falls back to its default range and says why; a file cannot
        reasons = "; ".join(f"{field}: {' '.join(str(e) for e in errors)}" for field, errors in filters.form.errors.items())
        return HttpResponse(f"Nothing exported: {reasons}", status=400, content_type="text/plain; charset=utf-8")
    r = filters.range
    response = StreamingHttpResponse(_csv_lines(r), content_type="text/csv; charset=utf-8")
    filename = f"toolrouter-usage-{r.key}-{date.today().isoformat()}.csv"
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


# --- curation: add a query to a tool, or dismiss it ---------------------------------------------

CURATION = "curation"  # the messages' tag: shown in the curation panel, where the operator is


class CurationForm(forms.Form):
    """The tool only: the query is checked by the service, by the hypothetical query's own rules, so a
    refusal names what is wrong with it."""

    tool = forms.CharField(max_length=128)


@dataclass
class CurationRow:
    miss: selectors.QueryMiss
    cannot_add: str  # why the query can never be a hypothetical query ("" when it can): no Add for it


def curation_rows(curation: list[selectors.QueryMiss]) -> list[CurationRow]:
    return [CurationRow(miss, services.query_problem(miss.query) if miss.query else "") for miss in curation]


class DismissForm(forms.Form):
    query_hash = forms.CharField(max_length=64)
    query = forms.CharField(max_length=4000, required=False)


def _back_to_curation(request: HttpRequest) -> HttpResponse:
    """To the view the operator came from (same range, client...), at the curation panel."""
    filters = read_filters(QueryDict(request.POST.get("back", "")))
    return redirect(f"{filters.url()}#curation")


@staff_member_required
@require_POST
def add_curation_query(request: HttpRequest) -> HttpResponse:
    form = CurationForm(request.POST)
    if not form.is_valid():
        messages.error(request, "Pick a tool for the query.", extra_tags=CURATION)
    else:
        try:
            added = services.add_learned_query(form.cleaned_data["tool"], request.POST.get("query", ""))
        except ValidationError as exc:
            messages.error(request, " ".join(exc.messages), extra_tags=CURATION)
        else:
            messages.success(request, f"Added “{added.text}” as a hypothetical query of {added.tool.name}; "
                                      "it takes part in routing once embedded.", extra_tags=CURATION)
    return _back_to_curation(request)


@staff_member_required
@require_POST
def dismiss_curation_query(request: HttpRequest) -> HttpResponse:
    form = DismissForm(request.POST)
    if not form.is_valid():
        messages.error(request, "Nothing to dismiss.", extra_tags=CURATION)
    else:
        dismissed = services.dismiss_query(form.cleaned_data["query_hash"], form.cleaned_data["query"] or None,
                                           by=request.user.get_username())
        messages.success(request, f"Dismissed “{dismissed}”: it no longer shows here "
                                  "(Usage analytics › Dismissed queries in the admin brings it back).",
                         extra_tags=CURATION)
    return _back_to_curation(request)
