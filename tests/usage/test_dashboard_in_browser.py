"""The dashboard in headless Chromium (Debian's package), driven by Playwright, logged in as staff."""
import pytest
from playwright.sync_api import sync_playwright

from api.services import create_api_key
from tests.support.browser import CHROMIUM, CHROMIUM_ARGS, log_in
from tests.support.worker import ARTIFACTS
from toolcatalog.models import HypotheticalQuery, Tool
from usage import services as usage
from usage import suggestions

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
    usage.drain_request_buffer()
    usage.record_feedback(request_id="b-1", used_tools=["play_music", "get_weather"], success=True, api_key_id=key.pk)
    # The weak query's likely tools, as the suggestion refresh ranks them (routing.learning.likely_tools).
    suggestions.refresh_suggestions(likely_tools=lambda texts: {text: ["get_weather"] for text in texts})


def _note_console_error(msg, problems: list[str]) -> None:
    # Django's admin login page has no favicon link, so Chromium asks for /favicon.ico; not ours.
    if msg.type == "error" and not msg.location.get("url", "").endswith("/favicon.ico"):
        problems.append(f"{msg.text} at {msg.location}")


@pytest.mark.usefixtures("usage_data")
def test_dashboard_in_headless_chromium(live_server) -> None:
    assert CHROMIUM.exists(), "install Debian's chromium: apt-get install -y chromium"
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    problems: list[str] = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            for scheme in ("light", "dark"):
                context = browser.new_context(color_scheme=scheme, viewport={"width": 1440, "height": 900})
                page = context.new_page()
                page.on("console", lambda msg: _note_console_error(msg, problems))
                page.on("pageerror", lambda exc: problems.append(str(exc)))
                page.on("dialog", lambda dialog: (problems.append(f"dialog: {dialog.message}"), dialog.dismiss()))
                log_in(page, live_server.url, "/dashboard/")

                assert page.locator("svg.chart").count() == 5
                assert page.locator("svg.chart rect.bar").count() > 10
                assert page.locator("svg.chart polyline.line-p50").count() >= 1
                assert page.inner_text("#total-requests") == "41"
                cell = page.locator("#curation-table td.query").first
                assert cell.inner_text() == MARKUP  # shown as text ...
                assert page.locator("#curation-table img, main img").count() == 0  # ... not as an element
                page.screenshot(path=str(ARTIFACTS / ("dashboard.png" if scheme == "light" else "dashboard-dark.png")),
                                full_page=True)
                context.close()

            context = browser.new_context()
            page = context.new_page()
            log_in(page, live_server.url, "/dashboard/")
            page.click("a:text('7 days')")
            page.wait_for_url("**/dashboard/?range=7d")
            assert page.locator("#curation-table input[name=tool]:not([type=hidden])").count() == 0  # nothing to type
            page.locator("#curation-table form.likely button", has_text="get_weather").first.click()
            page.wait_for_selector(".message.success")
            assert "get_weather" in page.inner_text(".message.success")
            context.close()
        finally:
            browser.close()
    assert problems == []
    assert HypotheticalQuery.objects.filter(text=MARKUP, tool__name="get_weather", source="learned").exists()
