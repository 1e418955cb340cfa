"""Queries, tool names and client names are user data: shown as text, never as markup."""
import pytest

from api.services import create_api_key
from toolcatalog.models import HypotheticalQuery, Tool
from usage import services as usage

from .records import make_record

pytestmark = [pytest.mark.django_db]

MARKUP = "<img src=x onerror=alert(1)>"
ESCAPED = "&lt;img src=x onerror=alert(1)&gt;"


@pytest.fixture
def hostile_log(client) -> None:
    key, raw = create_api_key(f"client {MARKUP}", scopes=["route"])
    usage.record_request(make_record(
        request_id="x1", api_key_id=key.pk, client=key.name, query=MARKUP, results=[], confidence=None,
        categories=[MARKUP],
    ))
    usage.record_request(make_record(request_id="x2", api_key_id=key.pk, client=key.name,
                                     results=[{"name": MARKUP, "rank": 1, "score": 0.9}]))
    usage.drain_request_buffer()
    client.post("/api/v1/feedback", {"request_id": "x2", "used_tools": [f"<b>{MARKUP}</b>"], "success": False},
                content_type="application/json", HTTP_AUTHORIZATION=f"Bearer {raw}")


@pytest.mark.usefixtures("hostile_log")
@pytest.mark.parametrize("range_key", ["24h", "7d"])
def test_markup_in_queries_tool_client_and_category_names_is_escaped(staff_client, range_key: str) -> None:
    usage.prune_and_roll_up()
    html = staff_client.get("/dashboard/", {"range": range_key}).content.decode()
    assert MARKUP not in html and "<b>" not in html
    curation = html[html.index('id="curation-table"'):]
    assert ESCAPED in curation  # the query, in the table and in the hidden form field
    clients = html[html.index('id="clients-table"'):]
    assert f"client {ESCAPED}" in clients
    assert html.count(ESCAPED) >= 6  # query, client, category chart, tool chart, tools table, missed tools


@pytest.mark.usefixtures("hostile_log")
def test_the_confirmation_message_escapes_the_query(staff_client) -> None:
    Tool.objects.create(name="safe_tool", description="A tool")
    response = staff_client.post("/dashboard/curation/add", {"query": MARKUP, "tool": "safe_tool"}, follow=True)
    assert HypotheticalQuery.objects.get(tool__name="safe_tool").text == MARKUP
    html = response.content.decode()
    assert MARKUP not in html and ESCAPED in html
