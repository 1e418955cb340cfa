"""The dashboard shows the learning loop: evidence collected, suggestions pending, accepted this week,
and recall on confirmed traffic (needed tools that were offered, and the rank of the used ones)."""
import re

import pytest

from toolcatalog.models import Tool
from usage import suggestions
from usage.learning_selectors import learning_loop
from usage.models import Suggestion
from usage.selectors import resolve_range

from .learning_support import request_with_feedback

pytestmark = pytest.mark.django_db


@pytest.fixture
def traffic() -> None:
    for name in ("play_music", "set_timer", "get_weather"):
        Tool.objects.create(name=name, description=name.replace("_", " "))
    request_with_feedback("play some jazz", ["play_music", "get_weather"], ["play_music"])  # needed 1, offered at 1
    request_with_feedback("rain today?", ["play_music", "get_weather"], ["get_weather"])  # offered at rank 2
    request_with_feedback("egg timer", ["play_music"], [], missing=["set_timer"])  # needed, not offered
    suggestions.refresh_suggestions()
    suggestions.accept(Suggestion.objects.get(tool__name="set_timer"))


@pytest.mark.usefixtures("traffic")
def test_the_figures() -> None:
    loop = learning_loop(resolve_range("24h"))
    assert (loop.evidence, loop.needed, loop.pending, loop.accepted_this_week) == (3, 3, 0, 1)
    assert loop.recall == pytest.approx(2 / 3) and loop.mean_rank == pytest.approx(1.5)
    assert [p.requests for p in loop.series if p.requests] == [3]


@pytest.mark.usefixtures("traffic")
def test_the_card_on_the_dashboard(staff_client) -> None:
    html = staff_client.get("/dashboard/").content.decode()
    card = html[html.index('id="learning-loop"'):]
    assert re.search(r'id="loop-evidence">3<', card) and re.search(r'id="loop-accepted">1<', card)
    assert re.search(r'id="loop-recall">67 %<', card) and "mean rank 1.5" in card
    assert 'href="/admin/suggestions/"' in card and 'href="/admin/catalog-doctor/"' in card
    assert "<circle" in card  # a lone point is drawn, not an empty frame


def test_the_card_without_feedback(staff_client) -> None:
    html = staff_client.get("/dashboard/").content.decode()
    assert "No feedback in this range yet." in html
