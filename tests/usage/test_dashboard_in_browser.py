"""The dashboard in headless Chromium (Debian's package), driven by Playwright, logged in as staff:
light and dark, markup in queries shown as text, the learning-loop card, and the curation list's
one-click Add and Dismiss."""
import pytest
from playwright.sync_api import expect

from api.services import create_api_key
from tests.support.browser import PageProblems, chromium, log_in
from tests.support.worker import ARTIFACTS
from toolcatalog.models import HypotheticalQuery, Tool
from usage import services as usage
from usage import suggestions
from usage.models import DismissedQuery

from .records import make_record

MARKUP = "<img src=x onerror=alert(1)>"


@pytest.fixture
def usage_data(django_user_model) -> None:
    """Created before Playwright starts: its event loop makes the ORM refuse to run in this thread."""
    django_user_model.objects.create_user(username="operator", password="pw-for-tests-only", is_staff=True)
    Tool.objects.create(name="get_weather", description="Weather now")
    key, raw = create_api_key("browser-agent", scopes=["route"])
    strategies = ["bm25", "auto:fast", "vector", "auto:hybrid", "hierarchical"]
    for i in range(40):
        usage.record_request(make_record(request_id=f"b-{i}", api_key_id=key.pk, client=key.name,
                                         strategy=strategies[i % 5], fallback=i % 9 == 0, latency_ms=2 + i % 7))
    usage.record_request(make_record(request_id="xss", api_key_id=key.pk, client=key.name, query=MARKUP,
                                     results=[], confidence=None))
    usage.record_request(make_record(request_id="junk", api_key_id=key.pk, client=key.name, query="=1+1",
                                     results=[], confidence=None))
    usage.drain_request_buffer()
    usage.record_feedback(request_id="b-1", used_tools=["play_music", "get_weather"], success=True, api_key_id=key.pk)
    # The weak queries' likely tools, as the suggestion refresh ranks them (routing.learning.likely_tools).
    suggestions.refresh_suggestions(likely_tools=lambda texts: {text: ["get_weather"] for text in texts})


@pytest.mark.usefixtures("usage_data")
def test_dashboard_in_headless_chromium(live_server) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    problems = PageProblems()
    with chromium() as browser:
        for scheme in ("light", "dark"):
            context = browser.new_context(color_scheme=scheme, viewport={"width": 1440, "height": 900})
            page = problems.watch(context.new_page())
            log_in(page, live_server.url, "operator", then="/dashboard/")
            assert page.locator("svg.chart").count() == 5
            assert page.locator("svg.chart rect.bar").count() > 10
            assert page.locator("svg.chart polyline.line-p50").count() >= 1
            assert page.inner_text("#total-requests") == "42"
            assert page.locator("#learning-loop svg.spark circle.dot").count() >= 1
            cell = page.locator("#curation-table td.query", has_text="img")
            assert cell.inner_text() == MARKUP  # shown as text ...
            assert page.locator("#curation-table img, #content img").count() == 0  # ... not as an element
            page.screenshot(path=str(ARTIFACTS / ("dashboard.png" if scheme == "light" else "dashboard-dark.png")),
                            full_page=True)
            context.close()

        context = browser.new_context(viewport={"width": 1280, "height": 900})
        page = problems.watch(context.new_page())
        log_in(page, live_server.url, "operator", then="/dashboard/")
        page.click("a:text('7 days')")
        page.wait_for_url("**/dashboard/?range=7d")
        row = page.locator("#curation-table tr", has_text="img")
        row.locator("form.likely button", has_text="get_weather").click()  # one click, nothing typed
        page.wait_for_url("**/dashboard/?range=7d#curation")
        expect(page.locator("#curation .curation-messages .success")).to_contain_text("get_weather")
        expect(page.locator("#curation .curation-messages .success")).to_be_in_viewport()  # where the operator is
        expect(page.locator("#curation-table td.query", has_text="img")).to_have_count(0)
        page.locator("#curation-table tr", has_text="=1+1").locator("input[value=Dismiss]").click()
        expect(page.locator("#curation .curation-messages .success")).to_contain_text("Dismissed")
        expect(page.locator("#curation-table td.query", has_text="=1+1")).to_have_count(0)
        context.close()
    assert problems.seen == []
    assert HypotheticalQuery.objects.filter(text=MARKUP, tool__name="get_weather", source="learned").exists()
    assert DismissedQuery.objects.filter(query="=1+1").exists()
