"""The catalog doctor on the demo catalog: a check stores a report with its findings, each with the
action that fixes it; the page renders the stored report (it computes nothing) and its fixes work."""
import pytest
from django.db import transaction

from routing import doctor
from tests.usage.learning_support import request_with_feedback
from toolcatalog import services as catalog
from toolcatalog.models import Tool
from usage import services as usage
from usage.models import CatalogDoctorReport

from ..usage.records import make_record

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fresh_usage_buffers")]


@pytest.fixture
def checked(demo_catalog) -> CatalogDoctorReport:
    original = Tool.objects.get(name="get_current_weather")  # a near copy: the engine cannot tell them apart
    twin = Tool.objects.create(name="weather_now", description=original.description, parameters=original.parameters)
    Tool.objects.create(name="invoices", description="Invoices")
    with transaction.atomic():
        catalog.embed_objects("tool", [twin.pk, Tool.objects.get(name="invoices").pk])
    for _ in range(2):  # the engine offered get_current_weather first, the model used weather_now
        request_with_feedback("how warm is it outside", ["get_current_weather", "weather_now"], ["weather_now"])
    usage.record_request(make_record(request_id="music", query="play jazz",
                                     results=[{"name": "play_music", "rank": 1, "score": 0.9}]))
    usage.drain_request_buffer()
    return doctor.check_catalog()


def test_the_report_finds_each_kind_of_problem(checked) -> None:
    findings = checked.findings
    pairs = {(p["a"], p["b"]): {r["kind"] for r in p["reasons"]} for p in findings["confusable"]}
    assert {"vectors", "traffic"} <= pairs[("get_current_weather", "weather_now")]
    assert {w["tool"]: w["reasons"] for w in findings["weak_descriptions"]}["invoices"][0].startswith("very short")
    assert findings["queries_routed"] == findings["queries_total"] > 400  # every embedded demo query
    misrouted = findings["misrouted_queries"]
    assert misrouted and all(m["rank"] != 1 for m in misrouted)
    assert all(m["first"] != m["tool"] for m in misrouted if m["rank"] is not None)
    never = findings["never_offered"]
    assert never["requests"] == 3 and "play_music" not in never["tools"] and "send_email" in never["tools"]
    assert "ask_user_clarification" not in never["tools"]  # core tools are offered anyway


def test_the_page_renders_the_stored_report_with_fixes(admin_client_logged_in, checked) -> None:
    html = admin_client_logged_in.get("/admin/catalog-doctor/").content.decode()
    assert f"Checked catalog version {checked.catalog_version}" in html and "changed since" not in html
    confusable = html[html.index('id="confusable-list"'):html.index('id="misrouted-list"')]
    assert "get_current_weather offered first, weather_now used, in 2 requests" in confusable
    assert "Link as related" in confusable and "/admin/toolcatalog/tool/" in confusable
    weak = html[html.index('id="weak-list"'):]
    assert "invoices" in weak and "Edit the description" in weak


def test_link_as_related_and_disable(admin_client_logged_in, checked) -> None:
    response = admin_client_logged_in.post("/admin/catalog-doctor/relate",
                                           {"a": "get_current_weather", "b": "weather_now"}, follow=True)
    assert "are now related tools of each other" in response.content.decode()
    assert "changed since" in response.content.decode()  # the catalog moved: the report says so
    assert list(Tool.objects.get(name="weather_now").related_tools.values_list("name", flat=True)) == \
        ["get_current_weather"]
    assert "weather_now" in Tool.objects.get(name="get_current_weather").related_tools.values_list("name", flat=True)
    admin_client_logged_in.post("/admin/catalog-doctor/disable", {"tool": "invoices", "section": "weak"})
    assert not Tool.objects.get(name="invoices").enabled


def test_without_a_report_the_page_says_so_and_checks_on_demand(admin_client_logged_in, demo_catalog) -> None:
    assert "No check has run yet" in admin_client_logged_in.get("/admin/catalog-doctor/").content.decode()
    response = admin_client_logged_in.post("/admin/catalog-doctor/check", follow=True)
    assert "Checked catalog version" in response.content.decode() and CatalogDoctorReport.objects.count() == 1


def test_beat_checks_only_when_the_catalog_moved(demo_catalog) -> None:
    first = doctor.check_catalog_if_due()
    assert first is not None and doctor.check_catalog_if_due() is None
    Tool.objects.create(name="new_tool", description="Does something new")
    assert doctor.check_catalog_if_due() is not None
