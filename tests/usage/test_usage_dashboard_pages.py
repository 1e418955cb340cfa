import re
from datetime import timedelta

import pytest
from django.utils import timezone

from usage import services as usage

from .records import make_record

pytestmark = [pytest.mark.django_db]


@pytest.fixture
def traffic() -> None:
    now = timezone.now()
    for i, strategy in enumerate(["bm25", "auto:fast", "vector", "auto:hybrid", "hierarchical"]):
        for hours_ago in (1, 30, 24 * 10):
            usage.record_request(make_record(
                request_id=f"{strategy}-{hours_ago}", strategy=strategy, created_at=now - timedelta(hours=hours_ago),
                client=f"client-{i % 2}", latency_ms=2.0 + i,
            ))
    usage.drain_request_buffer()
    usage.prune_and_roll_up()


def test_anonymous_visitors_are_sent_to_the_admin_login(client) -> None:
    response = client.get("/dashboard/")
    assert response.status_code == 302 and response.url.startswith("/admin/login/")


def test_non_staff_users_are_sent_to_the_admin_login(client, django_user_model) -> None:
    client.force_login(django_user_model.objects.create_user(username="plain", password="pw-for-tests-only"))
    assert client.get("/dashboard/").status_code == 302


@pytest.mark.usefixtures("traffic")
@pytest.mark.parametrize(("range_key", "requests"), [("24h", 5), ("7d", 10), ("30d", 15)])
def test_each_range_renders_its_figures_and_charts(staff_client, range_key: str, requests: int) -> None:
    response = staff_client.get("/dashboard/", {"range": range_key})
    assert response.status_code == 200
    html = response.content.decode()
    assert f'id="total-requests">{requests}<' in html
    assert html.count('<svg class="chart') == 5  # requests, latency, strategy mix, top tools, top categories
    for label in ("bm25", "vector", "hybrid", "hierarchical", "fallback"):  # the API's strategy names
        assert f'text-anchor="end">{label}<' in html
    assert "client-0" in html and "play_music" in html


@pytest.mark.usefixtures("traffic")
def test_the_strategy_mix_counts_fast_path_names_together_under_bm25(staff_client) -> None:
    html = staff_client.get("/dashboard/", {"range": "24h"}).content.decode()
    assert "bm25: 2 · 40.0 %" in html  # "bm25" and "auto:fast"
    assert ">fast path<" not in html and ">semantic<" not in html


def test_an_unknown_range_falls_back_to_24_hours(staff_client) -> None:
    response = staff_client.get("/dashboard/", {"range": "forever"})
    assert response.status_code == 200
    assert 'class="current" aria-current="page">24 h<' in response.content.decode()


def test_an_empty_log_renders_too(staff_client) -> None:
    response = staff_client.get("/dashboard/", {"range": "30d"})
    assert response.status_code == 200
    assert b"No requests in this range" in response.content


@pytest.mark.usefixtures("traffic")
def test_the_page_uses_only_local_static_files(staff_client) -> None:
    html = staff_client.get("/dashboard/").content.decode()
    assert "/static/dashboard/dashboard.css" in html
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", html)
    assert re.findall(r"<script[^>]*>", html) == re.findall(r'<script src="/static/admin/js/[a-z_]+\.js"[^>]*>', html)
