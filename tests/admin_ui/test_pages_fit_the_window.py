"""Every admin and dashboard page an operator uses, in headless Chromium at 1,280 and 1,400 px: no
horizontal overflow (the document does not scroll sideways, no table spills out of its module),
no console errors; a full-page screenshot of each under .data/test-artifacts/admin-ui/<width>/ and
the check's report in .data/test-artifacts/admin-ui/overflow-check.txt."""
from pathlib import Path

import pytest

from api.services import create_api_key
from routing import doctor
from tests.admin_ui.pages import check_every_page, operator_pages
from tests.support.browser import SCREENSHOTS, WIDTHS, PageProblems, check_overflow, chromium, log_in
from tests.support.catalog import load_demo_catalog
from tests.usage.records import make_record
from toolcatalog.models import Category, Tool
from usage import services as usage
from usage import suggestions

FILES = Path(__file__).resolve().parents[1] / "interchange" / "files"
LONG_CLIENT = "customer-support-assistant-production-eu-west"
LONG_QUERY = ("please find every invoice from the last quarter that mentions the enterprise plan and was paid late, "
              "then summarise them per customer with totals")


@pytest.fixture
def operator_data(transactional_db, django_user_model) -> dict[str, int]:
    """The demo catalog, a week of traffic from clients with long names, and a curation list."""
    django_user_model.objects.create_user(username="operator", password="pw-for-tests-only", is_staff=True,
                                          is_superuser=True)
    load_demo_catalog()
    create_api_key("mobile-app", ["route", "catalog"])
    names = list(Tool.objects.values_list("name", flat=True))
    clients = ["mobile-app", "web-agent", LONG_CLIENT]
    strategies = ["bm25", "auto:hybrid", "vector", "hierarchical", "hybrid"]
    for i in range(300):
        usage.record_request(make_record(
            request_id=f"r-{i}", client=clients[i % 3], strategy=strategies[i % 5], fallback=i % 11 == 0,
            latency_ms=1.5 + i % 40, query=LONG_QUERY if i % 7 == 0 else f"query number {i % 30}",
            confidence=(i % 10) / 10, categories=["music", "finance"][: 1 + i % 2],
            results=[{"name": names[(i * 7 + k) % len(names)], "rank": k + 1, "score": 0.5} for k in range(3)],
        ))
    usage.drain_request_buffer()
    for i in range(0, 60, 3):
        usage.record_feedback(request_id=f"r-{i}", used_tools=[names[(i * 7) % len(names)], "send_email"],
                              success=i % 2 == 0, api_key_id=None)
    suggestions.refresh_suggestions()
    doctor.check_catalog()
    return {"tool_id": Tool.objects.get(name="play_music").pk, "category_id": Category.objects.get(name="music").pk}


def test_every_page_fits_at_1280_and_1400_px(live_server, operator_data) -> None:
    results, problems = [], PageProblems()
    with chromium() as browser:
        for width in WIDTHS:
            context = browser.new_context(viewport={"width": width, "height": 900})
            page = problems.watch(context.new_page())
            log_in(page, live_server.url, "operator")
            # Rejections in the preview: long reasons.
            results += check_every_page(page, live_server.url, operator_pages(**operator_data), width,
                                        str(FILES / "openai-partial.json"))
            context.close()

        # The check itself can fail: a table wider than its module is reported.
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        page = context.new_page()
        log_in(page, live_server.url, "operator", then="/dashboard/")
        page.evaluate("document.querySelector('#clients-table td.name').style.whiteSpace = 'nowrap';"
                      "document.querySelector('#clients-table td.name').textContent = 'x'.repeat(400)")
        broken = check_overflow(page, "dashboard (widened)", 1280)
        context.close()

    report = "\n".join(r.line() for r in results)
    (SCREENSHOTS / "overflow-check.txt").write_text(report + "\n")
    print("\n" + report)
    assert not broken.ok and any("clients-table" in box or "module" in box for box in broken.boxes)
    assert [r.line() for r in results if not r.ok] == []
    assert problems.seen == []
