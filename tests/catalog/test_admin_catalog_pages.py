import json
from pathlib import Path

import pytest

from toolcatalog import services
from toolcatalog.models import EmbeddingStatus, Tool

pytestmark = pytest.mark.django_db

DEMO = Path(__file__).resolve().parents[2] / "toolcatalog" / "fixtures" / "demo_catalog.json"


@pytest.fixture
def demo_catalog() -> None:
    services.import_catalog(json.loads(DEMO.read_text()))


@pytest.mark.usefixtures("demo_catalog")
def test_tool_list_searches_descriptions_and_hypothetical_queries(admin_client_logged_in) -> None:
    response = admin_client_logged_in.get("/admin/toolcatalog/tool/", {"q": "jazz"})
    assert response.status_code == 200
    assert b"play_music" in response.content


@pytest.mark.usefixtures("demo_catalog")
def test_tool_list_filters_by_embedding_status(admin_client_logged_in) -> None:
    Tool.objects.filter(name="play_music").update(embedding_status=EmbeddingStatus.FAILED, embedding_error="boom")
    response = admin_client_logged_in.get("/admin/toolcatalog/tool/", {"embedding_status__exact": "failed"})
    assert b"play_music" in response.content
    assert b"search_music" not in response.content


@pytest.mark.usefixtures("demo_catalog")
def test_embedding_error_is_visible_on_the_tool_page(admin_client_logged_in) -> None:
    tool = Tool.objects.get(name="play_music")
    Tool.objects.filter(pk=tool.pk).update(embedding_status=EmbeddingStatus.FAILED, embedding_error="provider said 500")
    response = admin_client_logged_in.get(f"/admin/toolcatalog/tool/{tool.pk}/change/")
    assert b"provider said 500" in response.content
    assert b"Failed" in response.content


@pytest.mark.usefixtures("demo_catalog")
def test_bulk_disable_and_enable(admin_client_logged_in) -> None:
    ids = list(Tool.objects.filter(category__name="music").values_list("pk", flat=True))
    admin_client_logged_in.post("/admin/toolcatalog/tool/", {"action": "disable", "_selected_action": ids})
    assert not Tool.objects.filter(pk__in=ids, enabled=True).exists()
    admin_client_logged_in.post("/admin/toolcatalog/tool/", {"action": "enable", "_selected_action": ids})
    assert not Tool.objects.filter(pk__in=ids, enabled=False).exists()


@pytest.mark.usefixtures("demo_catalog")
def test_reembed_action_marks_rows_pending(admin_client_logged_in) -> None:
    Tool.objects.update(embedding_status=EmbeddingStatus.READY, embedding_text_hash="x")
    tool = Tool.objects.get(name="play_music")
    admin_client_logged_in.post("/admin/toolcatalog/tool/", {"action": "reembed", "_selected_action": [tool.pk]})
    tool.refresh_from_db()
    assert tool.embedding_status == EmbeddingStatus.PENDING and tool.embedding_text_hash == ""


def test_invalid_schema_in_the_admin_form_is_shown_and_nothing_saved(admin_client_logged_in) -> None:
    response = admin_client_logged_in.post("/admin/toolcatalog/tool/add/", {
        "name": "broken", "description": "Broken", "parameters": '{"type": "object", "required": "query"}',
        "hypothetical_queries-TOTAL_FORMS": "0", "hypothetical_queries-INITIAL_FORMS": "0",
    })
    assert response.status_code == 200
    assert b"not valid JSON Schema" in response.content
    assert not Tool.objects.exists()


def test_markup_in_a_tool_description_is_shown_as_text(admin_client_logged_in) -> None:
    tool = Tool.objects.create(name="x", description="<script>alert(1)</script>")
    response = admin_client_logged_in.get(f"/admin/toolcatalog/tool/{tool.pk}/change/")
    assert b"&lt;script&gt;alert(1)&lt;/script&gt;" in response.content
    assert b"<script>alert(1)</script>" not in response.content
