"""The tool and category admin pages: what they show around the fields, and the bulk category action."""
import pytest

from toolcatalog.models import Category, EmbeddingStatus, HypotheticalQuery, Tool

pytestmark = pytest.mark.django_db


def test_the_add_form_has_no_embedding_status_yet(admin_client_logged_in) -> None:
    page = admin_client_logged_in.get("/admin/toolcatalog/tool/add/").content.decode()
    assert "Pending" not in page and ">Embedding<" not in page
    assert "Workflow hints" in page  # the category field says where they live
    assert "Comma-separated" in page  # tags


def test_blank_query_rows_say_nothing_about_embeddings(admin_client_logged_in) -> None:
    tool = Tool.objects.create(name="get_weather", description="Weather now")
    HypotheticalQuery.objects.create(tool=tool, text="will it rain tomorrow in Lisbon", embedding_status="ready")
    page = admin_client_logged_in.get(f"/admin/toolcatalog/tool/{tool.pk}/change/").content.decode()
    inline = page[page.index('id="hypothetical_queries-group"'):]
    assert inline.count("Ready") == 1 and "Pending" not in inline  # the saved row; the blank rows show "—"
    assert 'value="will it rain tomorrow in Lisbon"' in inline and 'class="query-text"' in inline


def test_a_category_page_lists_its_tools(admin_client_logged_in) -> None:
    music = Category.objects.create(name="music", keywords=["song", "album"])
    play = Tool.objects.create(name="play_music", description="Play", category=music)
    Tool.objects.create(name="get_weather", description="Weather")
    page = admin_client_logged_in.get(f"/admin/toolcatalog/category/{music.pk}/change/").content.decode()
    assert f'href="/admin/toolcatalog/tool/{play.pk}/change/">play_music<' in page
    assert "get_weather" not in page
    assert f"?category__id__exact={music.pk}" in page
    assert 'value="song, album"' in page  # keywords as a readable comma list
    listing = admin_client_logged_in.get("/admin/toolcatalog/category/").content.decode()
    assert '<td class="field-tool_count">1</td>' in listing


def test_bulk_set_category_moves_the_tools_as_a_curator_edit(admin_client_logged_in) -> None:
    music = Category.objects.create(name="music")
    tools = [Tool.objects.create(name=f"tool_{i}", description="x", embedding_status=EmbeddingStatus.READY,
                                 embedding_text_hash="h") for i in range(3)]
    response = admin_client_logged_in.post("/admin/toolcatalog/tool/", {
        "action": "set_category", "category": music.pk, "_selected_action": [t.pk for t in tools[:2]]}, follow=True)
    assert "2 moved to music" in response.content.decode()
    moved = Tool.objects.filter(category=music).order_by("name")
    assert [t.name for t in moved] == ["tool_0", "tool_1"]
    assert all(t.curated_fields == ["category"] and t.embedding_status == EmbeddingStatus.PENDING for t in moved)
    assert Tool.objects.get(name="tool_2").category is None


def test_bulk_set_category_without_a_category_changes_nothing(admin_client_logged_in) -> None:
    tool = Tool.objects.create(name="tool_0", description="x")
    response = admin_client_logged_in.post("/admin/toolcatalog/tool/", {
        "action": "set_category", "category": "", "_selected_action": [tool.pk]}, follow=True)
    assert "Choose the category" in response.content.decode()
    assert Tool.objects.get(pk=tool.pk).category is None
