"""The dashboard's learning-loop card: its data (learning_selectors.learning_loop) and its small chart.

Kept apart from dashboard.py so the dashboard only adds `**learning_card.context(data)` to its
context and includes `dashboard/_learning_loop.html`.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .learning_selectors import LearningLoop, learning_loop, likely_tools_for
from .selectors import DashboardData

WIDTH, HEIGHT, PAD = 320, 70, 6


@dataclass
class Sparkline:
    segments: list[str] = field(default_factory=list)  # SVG polyline points, numbers only
    dots: list[tuple[float, float, str]] = field(default_factory=list)
    width: int = WIDTH
    height: int = HEIGHT


def recall_sparkline(loop: LearningLoop, bucket: str) -> Sparkline:
    """Recall per point (0-100 % on a fixed axis); a point without feedback breaks the line, a lone
    point shows as a dot."""
    chart = Sparkline()
    count = len(loop.series)
    step = (WIDTH - 2 * PAD) / max(count - 1, 1)
    current: list[str] = []
    for i, point in enumerate(loop.series):
        if point.recall is None:
            if current:
                chart.segments.append(" ".join(current))
            current = []
            continue
        x = round(PAD + step * i if count > 1 else WIDTH / 2, 1)
        y = round(HEIGHT - PAD - (HEIGHT - 2 * PAD) * point.recall, 1)
        current.append(f"{x},{y}")
        label = point.start.strftime("%H:%M" if bucket == "hour" else "%b %d")
        rank = f", mean rank {point.mean_rank:.1f}" if point.mean_rank is not None else ""
        chart.dots.append((x, y, f"{label}: recall {point.recall * 100:.0f} % of {point.requests} requests{rank}"))
    if current:
        chart.segments.append(" ".join(current))
    return chart


def context(data: DashboardData) -> dict[str, Any]:
    """The card, from the feedback the dashboard already read, and each curation-list query's likely tools
    (`miss.likely_tools`): one-click choices beside the tool name an operator can type."""
    curation = data.curation
    likely = likely_tools_for([m.query_hash for m in curation if m.query])
    for miss in curation:
        miss.likely_tools = likely.get(miss.query_hash, [])
    loop = learning_loop(data.range, feedback_series=data.feedback_series)
    return {"learning": loop, "learning_chart": recall_sparkline(loop, data.range.bucket)}
