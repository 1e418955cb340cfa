"""The operators' usage dashboard: staff only, charts drawn here as SVG geometry (no JavaScript, no CDN).

Everything a user typed (queries, tool and client names) reaches the page through the
templates' autoescaping only; the chart helpers below produce numbers and plain strings.
"""
from __future__ import annotations

import csv
import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import date, datetime

from django import forms
from django.contrib import messages
from django.contrib.admin.views.decorators import staff_member_required
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse, StreamingHttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
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


# --- views -------------------------------------------------------------------------------------

def _range_key(request: HttpRequest) -> str:
    key = request.GET.get("range") or request.POST.get("range") or selectors.DEFAULT_RANGE
    return key if key in selectors.RANGE_DAYS else selectors.DEFAULT_RANGE


@staff_member_required
@require_GET
def overview(request: HttpRequest) -> HttpResponse:
    data = selectors.dashboard_data(_range_key(request))
    bucket = data.range.bucket
    context = {
        "data": data,
        "ranges": RANGE_CHOICES,
        "range_key": data.range.key,
        "health": services.usage_health(),
        "requests_chart": requests_chart(data.series, bucket),
        "latency_chart": latency_chart(data.series, bucket),
        "strategy_chart": hbar_chart("Strategy mix", (
            (s.label, s.count, f"{s.count} · {_percent(s.share)}") for s in data.strategies)),
        "tools_chart": hbar_chart("Top tools (offered)", ((t.tool, t.offered, str(t.offered)) for t in data.top_tools)),
        "categories_chart": hbar_chart("Top categories", ((name, n, str(n)) for name, n in data.top_categories)),
        "saved_share": _percent(data.totals.saved_share),
        "hit_rate": _percent(data.feedback.hit_rate),
        "success_rate": _percent(data.feedback.success_rate),
        **learning_card.context(data.range, data.curation),
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
def export_csv(request: HttpRequest) -> StreamingHttpResponse:
    r = selectors.resolve_range(_range_key(request))
    response = StreamingHttpResponse(_csv_lines(r), content_type="text/csv; charset=utf-8")
    filename = f"toolrouter-usage-{r.key}-{date.today().isoformat()}.csv"
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


class CurationForm(forms.Form):
    query = forms.CharField(max_length=500)
    tool = forms.CharField(max_length=128)


@staff_member_required
@require_POST
def add_curation_query(request: HttpRequest) -> HttpResponse:
    form = CurationForm(request.POST)
    if not form.is_valid():
        messages.error(request, "Pick a tool for the query.")
    else:
        try:
            added = services.add_learned_query(form.cleaned_data["tool"], form.cleaned_data["query"])
        except ValidationError as exc:
            messages.error(request, " ".join(exc.messages))
        else:
            messages.success(request, f"Added “{added.text}” as a hypothetical query of {added.tool.name}.")
    return redirect(f"{reverse('dashboard:overview')}?range={_range_key(request)}#curation")
