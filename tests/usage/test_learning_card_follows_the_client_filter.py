"""With the dashboard's client filter, the learning-loop card counts that client's evidence and recall,
as the hit-rate card beside it does; the suggestion counts, which are the catalog's, say "all clients"."""
from __future__ import annotations

import re

import pytest
from django.test import Client

from toolcatalog.models import Tool
from usage.learning_selectors import learning_loop
from usage.selectors import dashboard_data, resolve_range

from .learning_support import request_with_feedback

pytestmark = pytest.mark.django_db


@pytest.fixture
def two_clients() -> None:
    for name in ("play_music", "set_timer"):
        Tool.objects.create(name=name, description=name.replace("_", " "))
    request_with_feedback("play some jazz", ["play_music"], ["play_music"], client="alpha")  # offered and used
    request_with_feedback("egg timer", ["play_music"], ["set_timer"], client="beta")  # used, never offered


@pytest.mark.usefixtures("two_clients")
def test_one_clients_evidence_and_recall() -> None:
    beta = resolve_range("24h", client="beta")
    loop = learning_loop(beta)
    assert (loop.evidence, loop.needed, loop.recall) == (1, 1, 0.0)
    assert loop.evidence == dashboard_data(beta).feedback.feedback
    alpha = learning_loop(resolve_range("24h", client="alpha"))
    assert (alpha.evidence, alpha.recall, alpha.mean_rank) == (1, 1.0, 1.0)
    every = learning_loop(resolve_range("24h"))
    assert (every.evidence, every.recall) == (2, 0.5)


@pytest.mark.usefixtures("two_clients")
def test_the_card_of_one_client(staff_client: Client) -> None:
    html = staff_client.get("/dashboard/", {"client": "beta"}).content.decode()
    card = html[html.index('id="learning-loop"'):]
    assert re.search(r'id="loop-evidence">1<', card) and re.search(r'id="loop-recall">0 %<', card)
    assert "suggestions pending (all clients)" in card and "accepted in the last 7 days (all clients)" in card
    every = staff_client.get("/dashboard/").content.decode()
    assert re.search(r'id="loop-evidence">2<', every) and "(all clients)" not in every
