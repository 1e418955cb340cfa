"""API keys pin tools by name: a tool renamed (in the admin, by the API) stays pinned under its
new name, and a key whose pinned tool was deleted can still be edited."""
from rest_framework.test import APIClient

from api.models import ApiKey
from api.services import create_api_key
from tests.support.catalog import api_client
from toolcatalog import services
from toolcatalog.models import Tool


def test_a_renamed_tool_stays_pinned_and_routed(demo_catalog) -> None:
    tool = Tool.objects.order_by("name").first()
    api_key, _ = create_api_key("pinning-agent", pinned_tools=[tool.name])
    old_name = tool.name
    tool.name = f"{old_name}_renamed"
    services.save_validated(tool)
    assert ApiKey.objects.get(pk=api_key.pk).pinned_tools == [f"{old_name}_renamed"]


def test_a_rename_through_the_api_is_followed_on_the_next_route(demo_catalog) -> None:
    tool = Tool.objects.order_by("name").last()
    curator = api_client(["catalog"], name="renaming-curator")
    _, raw_key = create_api_key("pinned-agent", pinned_tools=[tool.name])
    agent = APIClient()
    agent.credentials(HTTP_AUTHORIZATION=f"Bearer {raw_key}")
    renamed = curator.patch(f"/api/v1/tools/{tool.name}", {"name": "a_new_name_for_it"}, format="json")
    assert renamed.status_code == 200, renamed.content
    answer = agent.post("/api/v1/route", {"query": "unrelated words about weather"}, format="json").json()
    assert "a_new_name_for_it" in [m["name"] for m in answer["matches"]]


def test_a_key_whose_pinned_tool_was_deleted_can_still_be_edited(demo_catalog) -> None:
    tool = Tool.objects.order_by("name").first()
    api_key, _ = create_api_key("kept-agent", pinned_tools=[tool.name])
    tool.delete()
    api_key.rate_per_minute = 30
    api_key.full_clean()  # as the admin's form does: no "No tool is named ..." for a name it already had
    api_key.pinned_tools = [*api_key.pinned_tools, "never_existed"]
    try:
        api_key.full_clean()
    except Exception as exc:  # noqa: BLE001 - the message is what a curator reads
        assert "never_existed" in str(exc) and tool.name not in str(exc)
    else:
        raise AssertionError("a name the edit adds must exist")
