"""A hint naming a deleted tool is flagged even when no request of the retention window was
offered that tool: the catalog keeps deleted tools' names for the doctor."""
import pytest

from routing import doctor
from toolcatalog.models import Category, Tool

pytestmark = pytest.mark.django_db


def _deleted_in_hints(report) -> dict[str, list[str]]:
    return {f["owner"]: [t["name"] for t in f["tools"] if t["why"] == "deleted"]
            for f in report.findings["guidance_naming_missing"]}


def test_a_hint_naming_a_tool_deleted_before_any_traffic_is_flagged(admin_client_logged_in) -> None:
    web = Category.objects.create(name="web", description="Web search.",
                                  workflow_hint="Search with find_pages, then read_page (pass a page_id).")
    Tool.objects.create(name="find_pages", description="Finds web pages.", category=web)
    reader = Tool.objects.create(name="read_page", description="Reads a web page.", category=web)
    admin_client_logged_in.post(f"/admin/toolcatalog/tool/{reader.pk}/delete/", {"post": "yes"})
    assert not Tool.objects.filter(name="read_page").exists()
    assert _deleted_in_hints(doctor.check_catalog()) == {"web": ["read_page"]}  # page_id is no tool's name


def test_a_tool_created_again_under_a_deleted_name_is_not_flagged() -> None:
    web = Category.objects.create(name="web", description="Web search.", workflow_hint="Read with read_page.")
    Tool.objects.create(name="read_page", description="Reads a web page.", category=web).delete()
    Tool.objects.create(name="read_page", description="Reads a web page, again.", category=web)
    assert doctor.check_catalog().findings["guidance_naming_missing"] == []
