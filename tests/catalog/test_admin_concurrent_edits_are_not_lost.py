"""Two curators open the same object; the first saves. The second's save, made from the page
loaded before, is refused with a message instead of writing its old values over the first's."""
import re

from django.test import Client

from toolcatalog.models import Category, Tool, Toolset


def loaded_page(client: Client, url: str) -> dict[str, str]:
    """The change form's own hidden `loaded_at`, as the browser would send it back."""
    page = client.get(url).content.decode()
    loaded = re.search(r'name="loaded_at" value="([^"]+)"', page)
    assert loaded, "the change form carries the time it was loaded"
    return {"loaded_at": loaded.group(1)}


def tool_form(tool: Tool, **changes: str) -> dict:
    data = {"name": tool.name, "description": tool.description, "category": tool.category_id or "",
            "enabled": "on", "parameters": "{}", "usage_hint": tool.usage_hint, "tags": "", "source": tool.source,
            "hypothetical_queries-TOTAL_FORMS": "0", "hypothetical_queries-INITIAL_FORMS": "0",
            "hypothetical_queries-MIN_NUM_FORMS": "0", "hypothetical_queries-MAX_NUM_FORMS": "1000"}
    return {**data, **changes}


def test_the_second_of_two_tool_edits_is_refused_not_lost(demo_catalog, admin_client_logged_in) -> None:
    tool = Tool.objects.order_by("name").first()
    url = f"/admin/toolcatalog/tool/{tool.pk}/change/"
    first, second = loaded_page(admin_client_logged_in, url), loaded_page(admin_client_logged_in, url)
    saved = admin_client_logged_in.post(url, tool_form(tool, description="The first curator's words.", **first))
    assert saved.status_code == 302
    refused = admin_client_logged_in.post(url, tool_form(tool, usage_hint="The second curator's hint.", **second))
    assert refused.status_code == 200 and "was changed after you opened it" in refused.content.decode()
    tool.refresh_from_db()
    assert tool.description == "The first curator's words." and tool.usage_hint != "The second curator's hint."


def test_a_category_edit_after_an_import_changed_it_is_refused(demo_catalog, admin_client_logged_in) -> None:
    category = Category.objects.order_by("name").first()
    url = f"/admin/toolcatalog/category/{category.pk}/change/"
    stale = loaded_page(admin_client_logged_in, url)
    category.description = "Written by an import meanwhile."
    category.save()
    refused = admin_client_logged_in.post(url, {"name": category.name, "description": "An old page's text.",
                                                "keywords": "", "parent": "", "enabled": "on", "workflow_hint": "",
                                                **stale})
    assert "was changed after you opened it" in refused.content.decode()
    assert Category.objects.get(pk=category.pk).description == "Written by an import meanwhile."


def test_a_toolset_edit_from_a_stale_page_keeps_the_tool_another_curator_added(demo_catalog,
                                                                               admin_client_logged_in) -> None:
    toolset = Toolset.objects.create(name="desk")
    first_tool, second_tool = Tool.objects.order_by("name")[:2]
    url = f"/admin/toolcatalog/toolset/{toolset.pk}/change/"
    first, second = loaded_page(admin_client_logged_in, url), loaded_page(admin_client_logged_in, url)
    assert admin_client_logged_in.post(url, {"name": "desk", "tools": [first_tool.pk], **first}).status_code == 302
    refused = admin_client_logged_in.post(url, {"name": "desk", "tools": [second_tool.pk], **second})
    assert refused.status_code == 200
    assert list(toolset.tools.values_list("pk", flat=True)) == [first_tool.pk]


def test_a_fresh_page_saves_as_before(demo_catalog, admin_client_logged_in) -> None:
    tool = Tool.objects.order_by("name").first()
    url = f"/admin/toolcatalog/tool/{tool.pk}/change/"
    for words in ("One edit.", "Another edit, from a page opened after the first."):
        saved = admin_client_logged_in.post(url, tool_form(tool, description=words, **loaded_page(admin_client_logged_in, url)))
        assert saved.status_code == 302
    assert Tool.objects.get(pk=tool.pk).description == "Another edit, from a page opened after the first."
