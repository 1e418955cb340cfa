"""The operator's everyday tasks, done through the admin in headless Chromium (1,400 px), against the
live server, a real Celery worker and the local embedding model; screenshots of each step under
.data/test-artifacts/admin-ui/tasks/."""
import json
import re
import time
from pathlib import Path

import httpx2 as httpx
import pytest
from playwright.sync_api import Page, expect

from api.models import ApiKey
from tests.support.browser import PageProblems, chromium, log_in, screenshot
from toolcatalog.models import Category, EmbeddingStatus, HypotheticalQuery, Tool

FILES = Path(__file__).resolve().parents[1] / "interchange" / "files"
WIDTH = 1400
READY_TIMEOUT_S = 180


@pytest.fixture
def operator(transactional_db, django_user_model) -> None:
    django_user_model.objects.create_user(username="operator", password="pw-for-tests-only", is_staff=True,
                                          is_superuser=True)


def _session(browser, live_server, problems: PageProblems) -> Page:
    page = problems.watch(browser.new_context(viewport={"width": WIDTH, "height": 900}).new_page())
    log_in(page, live_server.url, "operator")
    return page


def _shot(page: Page, name: str) -> None:
    screenshot(page, f"tasks/{name}", WIDTH)


def _wait_until_ready(page: Page) -> None:
    """Reload the tool's page until it and its two queries say Ready (the worker embeds them)."""
    deadline = time.monotonic() + READY_TIMEOUT_S
    while time.monotonic() < deadline:
        page.reload()
        statuses = page.locator(".embedding-status").all_inner_texts()
        if statuses.count("Ready") == 3:  # the tool, then its two hypothetical queries
            return
        time.sleep(1)
    raise AssertionError(f"not embedded within {READY_TIMEOUT_S} s: {statuses}")


@pytest.mark.usefixtures("operator", "local_worker")
def test_add_a_tool_with_a_new_category_and_queries_wait_for_ready_and_find_it(live_server) -> None:
    Tool.objects.create(name="get_weather", description="Current weather and forecast for a city")
    Tool.objects.create(name="play_music", description="Play a song, album or playlist")
    problems = PageProblems()
    with chromium() as browser:
        page = _session(browser, live_server, problems)
        page.goto(f"{live_server.url}/admin/toolcatalog/tool/add/")
        page.fill("#id_name", "convert_temperature")
        page.fill("#id_description", "Convert a temperature between Celsius, Fahrenheit and Kelvin.")
        with page.expect_popup() as popup_info:  # the category does not exist yet: the "+" beside it
            page.click("#add_id_category")
        popup = popup_info.value
        popup.wait_for_load_state()
        popup.fill("#id_name", "units")
        popup.fill("#id_description", "Converting units of measure")
        popup.fill("#id_workflow_hint", "**Units workflow**\n1. Convert\n2. Round to two decimals")
        with popup.expect_event("close"):  # listening before the click: the popup may close before it returns
            popup.click("input[name=_save]")
        expect(page.locator("#id_category option:checked")).to_have_text("units")

        parameters = page.locator("textarea.parameters-editor")
        parameters.fill('{"type": "object", "properties": {"value": {"type": "number"}, "to": {"type": "strin"}}}')
        expect(page.locator(".parameters-status")).to_contain_text("(at properties/to/type)")
        parameters.fill('{"type": "object", "properties": {"value": {"type": "number"}, '
                        '"to": {"type": "string", "enum": ["C", "F", "K"]}}, "required": ["value", "to"]}')
        page.click("button.parameters-format")
        expect(page.locator(".parameters-status")).to_have_text("Valid JSON Schema.")
        assert parameters.input_value().startswith('{\n  "type": "object",')
        page.click(".definition-tab[data-format=anthropic]")
        expect(page.locator("pre.definition[data-format=anthropic]")).to_contain_text('"input_schema"')
        page.fill("#id_hypothetical_queries-0-text", "what is 30 degrees celsius in fahrenheit")
        page.fill("#id_hypothetical_queries-1-text", "convert 451 F to C")
        _shot(page, "1-tool-form")
        page.click("input[name=_continue]")
        expect(page.locator(".messagelist .success")).to_contain_text("was added successfully")
        _shot(page, "2-tool-saved-pending")
        _wait_until_ready(page)
        _shot(page, "3-tool-ready")

        page.goto(f"{live_server.url}/admin/try-query/")
        page.fill("#id_query", "how many fahrenheit is 21 celsius")
        page.select_option("#id_strategy", "hybrid")
        page.click("input[type=submit][value=Route]")
        first = page.locator("#tools tbody tr").first
        expect(first).to_contain_text("convert_temperature")
        expect(page.locator("#guidance ol li")).to_have_count(2)  # the new category's hint, as a list
        _shot(page, "4-try-query")
    assert problems.seen == []
    tool = Tool.objects.get(name="convert_temperature")
    assert tool.category.name == "units" and tool.embedding_status == EmbeddingStatus.READY
    assert set(HypotheticalQuery.objects.filter(tool=tool).values_list("embedding_status", flat=True)) == {"ready"}


@pytest.mark.usefixtures("operator")
def test_import_with_a_preview_into_a_category(live_server) -> None:
    Category.objects.create(name="weather")
    problems = PageProblems()
    with chromium() as browser:
        page = _session(browser, live_server, problems)
        page.goto(f"{live_server.url}/admin/catalog-import/")
        page.set_input_files("input[name=file]", str(FILES / "openai-tools.json"))
        page.select_option("#id_category", "weather")
        page.click("button[value=preview]")
        expect(page.locator("#import-report h2")).to_contain_text("Preview (nothing changed)")
        expect(page.locator("#kept-upload")).to_contain_text("openai-tools.json")
        _shot(page, "5-import-preview")
        page.click("button[value=import]")  # no second upload: the page kept the file
        expect(page.locator("#import-report h2")).to_contain_text("Imported")
        created = page.locator("#import-report tr.created td.name a").first
        name = created.inner_text()
        _shot(page, "6-import-done")
        created.click()
        expect(page.locator("#id_name")).to_have_value(name)
        expect(page.locator("#id_category option:checked")).to_have_text("weather")
    assert problems.seen == []
    expected = len(json.loads((FILES / "openai-tools.json").read_text()))
    assert Tool.objects.filter(category__name="weather").count() == Tool.objects.count() == expected


@pytest.mark.usefixtures("operator")
def test_bulk_set_a_category(live_server) -> None:
    music = Category.objects.create(name="music")
    tools = [Tool.objects.create(name=name, description="x") for name in ("play_music", "skip_track", "get_weather")]
    problems = PageProblems()
    with chromium() as browser:
        page = _session(browser, live_server, problems)
        page.goto(f"{live_server.url}/admin/toolcatalog/tool/")
        for tool in tools[:2]:
            page.check(f"input.action-select[value='{tool.pk}']")
        page.select_option("select[name=action]", "set_category")
        page.select_option("select[name=category]", label="music")
        page.click("button[name=index]")
        expect(page.locator(".messagelist .success")).to_contain_text("2 moved to music")
        _shot(page, "7-bulk-category")
    assert problems.seen == []
    assert sorted(Tool.objects.filter(category=music).values_list("name", flat=True)) == ["play_music", "skip_track"]


@pytest.mark.usefixtures("operator")
def test_create_a_key_with_two_scopes_and_use_it(live_server) -> None:
    problems = PageProblems()
    with chromium() as browser:
        page = _session(browser, live_server, problems)
        page.goto(f"{live_server.url}/admin/api/apikey/add/")
        page.fill("#id_name", "ops-console")
        expect(page.locator("input[name=scopes][value=route]")).to_be_checked()
        page.check("input[name=scopes][value=catalog]")
        page.fill("#id_filter_tools_path", "$.request.tools")
        page.click("input[name=_save]")
        message = page.locator(".messagelist .warning").inner_text()
        expect(page.locator("td.field-scope_list").first).to_have_text("route, catalog")
        _shot(page, "8-api-key")
    assert problems.seen == []
    raw_key = re.search(r"tr_[A-Za-z0-9_\-]+", message).group(0)
    key = ApiKey.objects.get(name="ops-console")
    assert key.scopes == ["route", "catalog"] and key.filter_tools_path == "$.request.tools"
    headers = {"Authorization": f"Bearer {raw_key}"}
    assert httpx.get(f"{live_server.url}/api/v1/catalog/export", headers=headers).status_code == 200
    assert httpx.post(f"{live_server.url}/api/v1/route", json={"query": "x"}, headers=headers).status_code == 200
