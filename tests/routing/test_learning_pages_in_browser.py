"""The suggestion and catalog doctor pages in headless Chromium (Debian's package) driven by Playwright:
they render in the admin's frame without sideways scrolling at 1,400 px, a suggestion is accepted in one
click, and screenshots go to .data/test-artifacts/."""
import pytest

from routing import doctor
from tests.support.browser import PageProblems, check_overflow, chromium, log_in
from tests.support.worker import ARTIFACTS
from tests.usage.learning_support import request_with_feedback
from toolcatalog.models import HypotheticalQuery, Tool
from usage import suggestions
from usage.models import Suggestion, SuggestionStatus

WIDTH = 1400


@pytest.fixture
def learning_data(demo_catalog, django_user_model, fresh_usage_buffers) -> None:
    """Created before Playwright starts: its event loop makes the ORM refuse to run in this thread."""
    django_user_model.objects.create_superuser(username="operator", password="pw-for-tests-only")
    Tool.objects.create(name="invoices", description="Invoices")  # a weak description for the doctor
    request_with_feedback("is it going to rain in Lisbon tomorrow", ["play_music", "get_current_weather"], [],
                          missing=["get_weather_forecast"], client="travel-agent")
    request_with_feedback("Find a free hour with Ana next week. Then, send her an email with the slot.",
                          ["list_events"], [], missing=["find_free_slots", "send_email"], client="office-bot")
    for client in ("office-bot", "travel-agent"):
        request_with_feedback("what's on my calendar today", ["list_events", "create_event"], ["list_events"],
                              client=client)
    suggestions.refresh_suggestions()
    doctor.check_catalog()


@pytest.mark.usefixtures("learning_data")
def test_suggestions_and_doctor_in_headless_chromium(live_server) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    problems = PageProblems()
    with chromium() as browser:
        page = problems.watch(browser.new_context(viewport={"width": WIDTH, "height": 900}).new_page())
        log_in(page, live_server.url, "operator", then="/admin/suggestions/")

        rows = page.locator("#suggestion-list tr.suggestion")
        texts = rows.locator("td.text").all_inner_texts()
        assert "is it going to rain in Lisbon tomorrow" in texts
        assert "Send her an email with the slot." in texts  # the part of a multi-tool request
        assert "what's on my calendar today" in texts  # confirmed by two clients
        fit = check_overflow(page, "suggestions", WIDTH)
        assert fit.ok, fit.line()
        page.screenshot(path=str(ARTIFACTS / "suggestions.png"), full_page=True)

        row = rows.filter(has_text="is it going to rain in Lisbon tomorrow")
        row.locator("button.accept").click()
        page.wait_for_selector(".messagelist .success")
        assert "is now a hypothetical query of get_weather_forecast" in page.inner_text(".messagelist")
        assert page.locator("#decision-list").inner_text().count("accepted") == 1
        page.screenshot(path=str(ARTIFACTS / "suggestions-after-accept.png"), full_page=True)

        page.goto(f"{live_server.url}/admin/catalog-doctor/")
        assert page.locator("#report-meta").is_visible()
        assert "invoices" in page.locator("#weak-list").text_content()
        assert page.locator("#misrouted-list tbody tr").count() > 0
        assert page.locator("#confusable-list button, #confusable-list input[type=submit]").count() > 0
        fit = check_overflow(page, "catalog-doctor", WIDTH)
        assert fit.ok, fit.line()
        page.screenshot(path=str(ARTIFACTS / "catalog-doctor.png"), full_page=True)

        page.goto(f"{live_server.url}/dashboard/")
        page.locator("#learning-loop").screenshot(path=str(ARTIFACTS / "dashboard-learning-loop.png"))
        assert page.inner_text("#loop-accepted") == "1"
    assert problems.seen == []
    accepted = Suggestion.objects.get(text="is it going to rain in Lisbon tomorrow")
    assert accepted.status == SuggestionStatus.ACCEPTED and accepted.decided_by.username == "operator"
    assert HypotheticalQuery.objects.filter(tool__name="get_weather_forecast", source="traffic",
                                            text="is it going to rain in Lisbon tomorrow").exists()
