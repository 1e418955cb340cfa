"""The dashboard's curation list says why a query cannot become a hypothetical query (too long,
empty, unstorable) instead of offering Add, and a refused Add names the query's fault, not the tool."""
import pytest

from toolcatalog.models import HypotheticalQuery, Tool
from usage import services as usage

from .records import make_record

pytestmark = [pytest.mark.django_db]

LONG_QUERY = "please find " + "the weather " * 60


@pytest.fixture(autouse=True)
def get_weather() -> None:
    Tool.objects.create(name="get_weather", description="Weather now")


def test_a_query_too_long_is_listed_with_the_reason_instead_of_add(staff_client) -> None:
    usage.record_request(make_record(request_id="long", query=LONG_QUERY, results=[], confidence=None))
    usage.drain_request_buffer()
    html = staff_client.get("/dashboard/").content.decode()
    row = html[html.index("please find the weather"):]
    row = row[:row.index("</tr>")]
    assert "a hypothetical query holds at most 500" in row
    assert 'value="Add"' not in row and 'value="Dismiss"' in row


@pytest.mark.parametrize(("query", "reason"), [
    (LONG_QUERY, "a hypothetical query holds at most 500"),
    ("  ", "The query is empty"),
    ("will it\x00 rain", "The query contains a NUL character"),
])
def test_a_refused_add_names_what_is_wrong_with_the_query(staff_client, query, reason) -> None:
    response = staff_client.post("/dashboard/curation/add", {"query": query, "tool": "get_weather"}, follow=True)
    html = response.content.decode()
    assert reason in html and "Pick a tool" not in html
    assert not HypotheticalQuery.objects.exists()
