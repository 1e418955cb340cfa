"""The dashboard's range, client filter and auto-refresh, and the tool lists an operator acts on."""
from datetime import timedelta

import pytest
from django.utils import timezone

from toolcatalog.models import Category, Tool
from usage import services as usage

from .records import make_record

pytestmark = [pytest.mark.django_db]


@pytest.fixture
def traffic() -> None:
    """Two clients today, one of them also 10 days ago; rolled up, so old days read from the rollups."""
    now = timezone.now()
    for i in range(3):
        usage.record_request(make_record(request_id=f"a-{i}", client="mobile-app", created_at=now - timedelta(hours=1)))
    usage.record_request(make_record(request_id="b-0", client="web-agent", created_at=now - timedelta(hours=2),
                                     results=[{"name": "get_weather", "rank": 1, "score": 0.8}]))
    usage.record_request(make_record(request_id="old", client="web-agent", created_at=now - timedelta(days=10)))
    usage.drain_request_buffer()
    usage.prune_and_roll_up()


def _total(html: str) -> str:
    return html.split('id="total-requests">', 1)[1].split("<", 1)[0]


@pytest.mark.usefixtures("traffic")
def test_a_custom_range_of_days(staff_client) -> None:
    today = timezone.now().date()
    ten_days_ago = today - timedelta(days=10)
    html = staff_client.get("/dashboard/", {"range": "custom", "start": ten_days_ago, "end": ten_days_ago}).content.decode()
    assert _total(html) == "1"
    assert f'name="start" value="{ten_days_ago}"' in html
    whole = staff_client.get("/dashboard/", {"start": ten_days_ago, "end": today}).content.decode()
    assert _total(whole) == "5"


@pytest.mark.parametrize("params", [{"range": "custom", "start": "2026-03-09"},
                                    {"range": "custom", "start": "2026-03-09", "end": "2026-03-01"},
                                    {"range": "custom", "start": "2999-01-01", "end": "2999-01-02"}])
def test_a_bad_custom_range_says_why_and_shows_the_default(staff_client, params) -> None:
    html = staff_client.get("/dashboard/", params).content.decode()
    assert 'class="errorlist nonfield"' in html
    assert 'aria-current="page">24 h<' in html


@pytest.mark.usefixtures("traffic")
def test_the_client_filter_and_its_drill_down(staff_client) -> None:
    html = staff_client.get("/dashboard/", {"range": "30d"}).content.decode()
    assert _total(html) == "5"
    assert 'href="/dashboard/?range=30d&amp;client=web-agent"' in html  # the clients table drills down
    only = staff_client.get("/dashboard/", {"range": "30d", "client": "web-agent"}).content.decode()
    assert _total(only) == "2"
    assert '<option value="web-agent" selected>' in only and '<option value="mobile-app">' in only
    assert 'id="clear-client"' in only
    csv_rows = b"".join(staff_client.get("/dashboard/export.csv", {"range": "30d", "client": "web-agent"})
                        .streaming_content).decode().strip().splitlines()
    assert len(csv_rows) == 3  # the header and web-agent's two requests


def test_auto_refresh_reloads_the_same_view(staff_client) -> None:
    html = staff_client.get("/dashboard/", {"range": "7d", "refresh": "60"}).content.decode()
    assert '<meta http-equiv="refresh" content="60">' in html
    assert '<a href="/dashboard/?range=7d&amp;refresh=60" class="current" aria-current="page">7 days</a>' in html
    assert "http-equiv" not in staff_client.get("/dashboard/").content.decode()


@pytest.mark.usefixtures("traffic")
def test_tools_link_to_the_admin_and_core_tools_stand_apart(staff_client) -> None:
    general = Category.objects.create(name="general")
    play = Tool.objects.create(name="play_music", description="Play")
    Tool.objects.create(name="search_music", description="Search", core=True, category=general)
    never = Tool.objects.create(name="get_lyrics", description="Lyrics")
    Tool.objects.create(name="old_tool", description="Disabled", enabled=False)
    html = staff_client.get("/dashboard/").content.decode()
    tools = html[html.index('id="tools-table"'):html.index("</table>", html.index('id="tools-table"'))]
    ranked, core = tools.split('id="core-tools"')
    assert f'href="/admin/toolcatalog/tool/{play.pk}/change/">play_music<' in ranked and "search_music" not in ranked
    assert "search_music" in core
    assert "get_weather</a>" not in tools and "get_weather <span" in tools  # not in the catalog: no link
    never_offered = html[html.index('id="never-offered"'):html.index('id="never-used"')]
    assert f'href="/admin/toolcatalog/tool/{never.pk}/change/">get_lyrics<' in never_offered
    assert "old_tool" not in never_offered and "play_music" not in never_offered


@pytest.mark.usefixtures("traffic")
def test_the_feedback_card_counts_in_words(staff_client) -> None:
    usage.record_feedback(request_id="a-0", used_tools=["play_music"], success=None, api_key_id=None)
    html = staff_client.get("/dashboard/").content.decode()
    assert "of 1 tool called in 1 turn with feedback; no success reported" in html
    assert "1 turns" not in html and "success –" not in html
