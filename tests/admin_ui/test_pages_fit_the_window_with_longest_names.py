"""The same admin and dashboard pages at 1,280 px when every name is as long as the catalog allows:
128 characters with no break opportunity (letters, digits, '_' and '.') for tools, categories, a
toolset and an API key (the dashboard's client). No page may scroll sideways and no table may spill
out of its module; screenshots under .data/test-artifacts/admin-ui/1280/longest-names/."""
import json

import pytest

from api.models import ApiKey
from api.services import create_api_key
from engine import CATALOG_NAME_MAX
from routing import doctor, learning
from tests.admin_ui.pages import check_every_page, operator_pages
from tests.support.browser import SCREENSHOTS, PageProblems, chromium, log_in
from tests.support.catalog import load_demo_catalog
from tests.usage.records import make_record
from toolcatalog.models import Category, Tool, Toolset
from usage import services as usage

WIDTH = 1280
# An MCP server's name in front of each tool's own name, cut so that the whole name is 128 characters.
SERVER = ("acme_enterprise_integration_platform_production_eu_west_1_customer_support_and_billing_operations_"
          "mcp_gateway_for_internal_agents_v2")
LONGEST_KEY = ("customer_support_assistant_production_eu_west_1_tenant_acme_corporation_internal_agents_"
               "with_extended_tool_access_v2_primary_replica")[:ApiKey._meta.get_field("name").max_length]
LONGEST_TOOLSET = ("customer_support_and_billing_operations_toolset_for_internal_agents_in_production_eu_west_1_"
                   "with_extended_access_v2_and_pinned_core_tools")[:CATALOG_NAME_MAX]



def longest(name: str, server: str = SERVER) -> str:
    return f"{server[:CATALOG_NAME_MAX - len(name) - 1]}.{name}"


def _rename_everything() -> None:
    """Every tool and category of the demo catalog renamed to a longest name, through the model's save
    (the rename signals follow), and a second server's `send_emails`: a duplicate with a weak description."""
    for category in Category.objects.all():
        category.name = longest(category.name)
        category.save()
    for tool in Tool.objects.all():
        tool.name = longest(tool.name)
        tool.save()
    Tool.objects.create(name=longest("send_emails", "globex_" + SERVER), description="Emails.",
                        category=Category.objects.get(name=longest("email")))


@pytest.fixture
def longest_names(transactional_db, django_user_model) -> dict[str, int]:
    """The demo catalog under longest names, traffic from a client whose key has the longest name,
    feedback, suggestions (with alternatives) and a catalog doctor report."""
    django_user_model.objects.create_user(username="operator", password="pw-for-tests-only", is_staff=True,
                                          is_superuser=True)
    load_demo_catalog()
    _rename_everything()
    Toolset.objects.create(name=LONGEST_TOOLSET)
    create_api_key(LONGEST_KEY, ["route", "catalog"])
    names = list(Tool.objects.values_list("name", flat=True))
    categories = [longest("music"), longest("finance")]
    clients = ["mobile-app", LONGEST_KEY]
    for i in range(200):
        usage.record_request(make_record(
            request_id=f"r-{i}", client=clients[i % 2], strategy="hybrid", latency_ms=1.5 + i % 40,
            query=f"query number {i % 30}", confidence=(i % 10) / 10, categories=categories[: 1 + i % 2],
            results=[{"name": names[(i * 7 + k) % len(names)], "rank": k + 1, "score": 0.5} for k in range(3)],
        ))
    usage.drain_request_buffer()
    for i in range(0, 60, 3):
        # A tool the request did not offer: each becomes a suggestion at once.
        usage.record_feedback(request_id=f"r-{i}", used_tools=[names[(i * 7 + 5) % len(names)]], success=True,
                              api_key_id=None)
    learning.refresh_suggestions()  # with the engine's likely tools for the weak queries
    doctor.check_catalog()
    return {"tool_id": Tool.objects.get(name=longest("play_music")).pk,
            "category_id": Category.objects.get(name=longest("music")).pk}


def _import_document() -> bytes:
    """An OpenAI tools list with a longest name, and one a character too long (rejected, named in the reason)."""
    def function(name: str) -> dict:
        return {"type": "function", "function": {"name": name, "description": "Look up an order by its number",
                                                  "parameters": {"type": "object", "properties": {}}}}
    return json.dumps([function(longest("get_order")), function("x" + longest("get_order"))]).encode()


def test_every_page_fits_at_1280_px_with_the_longest_names(live_server, longest_names) -> None:
    problems = PageProblems()
    with chromium() as browser:
        context = browser.new_context(viewport={"width": WIDTH, "height": 900})
        page = problems.watch(context.new_page())
        log_in(page, live_server.url, "operator")
        document = {"name": "longest-names.json", "mimeType": "application/json", "buffer": _import_document()}
        results = check_every_page(page, live_server.url, operator_pages(**longest_names), WIDTH, document,
                                   shots="longest-names/")
        context.close()

    report = "\n".join(r.line() for r in results)
    (SCREENSHOTS / "overflow-check-longest-names.txt").write_text(report + "\n")
    print("\n" + report)
    assert [r.line() for r in results if not r.ok] == []
    assert problems.seen == []
