"""The catalog doctor lists the usage and workflow hints that name a tool no request is offered
(disabled, in a disabled category, or deleted), each with the link that fixes it: a hint that
says "use search_google" for a disabled search_google tells the model to call a tool it never gets.
Hints are read as a rename reads them: whole names only, so ordinary words, field names and
longer names that contain a tool's name are not flagged."""
import pytest

from routing import doctor
from toolcatalog import services as catalog
from toolcatalog.models import Category, Tool
from usage import services as usage
from usage.models import CatalogDoctorReport

from ..usage.records import make_record

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fresh_usage_buffers")]

WORKFLOW = "1. Use search_google (pass a track_id).\n2. Then open_page on a hit, not old_search."
USAGE = "Only after search_google or news.search; unlike search_google_news or files.search_google, pages stay."


@pytest.fixture
def checked() -> CatalogDoctorReport:
    web = Category.objects.create(name="web", description="Web search.", workflow_hint=WORKFLOW)
    news = Category.objects.create(name="news", description="News.", enabled=False)
    Tool.objects.create(name="search_google", description="Searches the web with Google.", category=web)
    Tool.objects.create(name="open_page", description="Opens a web page and reads it.", category=web,
                        usage_hint=USAGE)
    Tool.objects.create(name="news.search", description="Searches news articles.", category=news)
    Tool.objects.create(name="search_google_news", description="Searches Google News articles.", category=web)
    Tool.objects.create(name="old_search", description="Searches the web the old way.", category=web)
    usage.record_request(make_record(query="find the news", results=[{"name": "old_search", "rank": 1, "score": 0.9}]))
    usage.drain_request_buffer()
    Tool.objects.get(name="old_search").delete()
    catalog.set_enabled(Tool.objects.filter(name="search_google"), False)
    return doctor.check_catalog()


def _named(report: CatalogDoctorReport) -> dict[tuple[str, str], dict[str, str]]:
    return {(f["owner_kind"], f["owner"]): {t["name"]: t["why"] for t in f["tools"]}
            for f in report.findings["guidance_naming_missing"]}


def test_hints_naming_disabled_and_deleted_tools_are_flagged(checked) -> None:
    assert _named(checked) == {
        ("category", "web"): {"search_google": "disabled", "old_search": "deleted"},
        ("tool", "open_page"): {"search_google": "disabled", "news.search": "category disabled"},
    }


def test_the_page_links_the_hint_and_the_tool_to_enable(admin_client_logged_in, checked) -> None:
    html = admin_client_logged_in.get("/admin/catalog-doctor/").content.decode()
    found = html[html.index('id="guidance-missing-list"'):html.index('id="never-offered"')]
    web = Category.objects.get(name="web")
    open_page, search = Tool.objects.get(name="open_page"), Tool.objects.get(name="search_google")
    assert f'href="/admin/toolcatalog/category/{web.pk}/change/#id_workflow_hint">Edit the hint' in found
    assert f'href="/admin/toolcatalog/tool/{open_page.pk}/change/#id_usage_hint">Edit the hint' in found
    assert f'href="/admin/toolcatalog/tool/{search.pk}/change/">Enable search_google' in found
    news = Category.objects.get(name="news")
    assert f'href="/admin/toolcatalog/category/{news.pk}/change/">Enable category news' in found
    assert "old_search: no longer exists" in found

