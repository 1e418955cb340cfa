import pytest
from django.test import Client

from toolcatalog.models import HypotheticalQuery, QuerySource, Tool
from usage import services as usage
from usage import suggestions
from usage.models import DismissedQuery

from .records import make_record

pytestmark = [pytest.mark.django_db]


@pytest.fixture
def tools() -> None:
    Tool.objects.create(name="get_weather", description="Weather now")
    Tool.objects.create(name="play_music", description="Play a song")


@pytest.fixture
def misses() -> None:
    for i in range(3):
        usage.record_request(make_record(request_id=f"nothing-{i}", query="will it rain", results=[], confidence=None))
    usage.record_request(make_record(request_id="weak", query="umbrella needed?", confidence=0.1))
    usage.record_request(make_record(request_id="fine", query="play some jazz", confidence=0.95))
    usage.drain_request_buffer()


@pytest.mark.usefixtures("misses")
def test_the_curation_list_holds_weak_and_empty_queries_most_frequent_first(staff_client) -> None:
    html = staff_client.get("/dashboard/").content.decode()
    curation = html[html.index('id="curation-table"'):]
    assert curation.index("will it rain") < curation.index("umbrella needed?")
    assert "play some jazz" not in curation


def _curation_panel(html: str) -> str:
    return html[html.index('id="curation"'):]


@pytest.mark.usefixtures("misses", "tools")
def test_one_click_adds_a_learned_hypothetical_query_and_the_row_leaves_the_list(staff_client) -> None:
    response = staff_client.post("/dashboard/curation/add",
                                 {"query": "will it rain", "tool": "get_weather", "back": "range=7d&client=tests"},
                                 follow=True)
    assert response.redirect_chain[-1][0] == "/dashboard/?range=7d&client=tests#curation"  # the same view
    query = HypotheticalQuery.objects.get(text="will it rain")
    assert (query.tool.name, query.source) == ("get_weather", QuerySource.LEARNED)
    panel = _curation_panel(response.content.decode())
    # The message shows in the curation panel, where the page lands, not at the top of the page.
    assert "as a hypothetical query of get_weather" in panel
    table = panel[panel.index('id="curation-table"'):]
    assert "will it rain" not in table and "umbrella needed?" in table


@pytest.mark.usefixtures("misses")
def test_dismissed_junk_leaves_the_list_for_good(staff_client) -> None:
    miss_hash = usage.query_hash("umbrella needed?")
    response = staff_client.post("/dashboard/curation/dismiss",
                                 {"query_hash": miss_hash, "query": "umbrella needed?", "back": "range=24h"}, follow=True)
    assert "Dismissed “umbrella needed?”" in _curation_panel(response.content.decode())
    usage.record_request(make_record(request_id="again", query="Umbrella  needed?", confidence=0.1))
    usage.drain_request_buffer()
    table = staff_client.get("/dashboard/").content.decode()
    table = table[table.index('id="curation-table"'):]
    assert "mbrella" not in table and "will it rain" in table
    assert DismissedQuery.objects.get(query_hash=miss_hash).dismissed_by == "operator"


@pytest.mark.usefixtures("tools")
def test_each_query_shows_who_asked_it_and_which_strategy_answered(staff_client) -> None:
    usage.record_request(make_record(request_id="a", query="sunny?", client="mobile-app", strategy="bm25",
                                     confidence=0.1))
    usage.record_request(make_record(request_id="b", query="sunny?", client="web-agent", strategy="hybrid",
                                     confidence=0.2))
    usage.drain_request_buffer()
    usage.prune_and_roll_up()  # today stays raw; the context comes from raw rows and rollups alike
    html = staff_client.get("/dashboard/").content.decode()
    row = html[html.index("sunny?"):]
    row = row[:row.index("</tr>")]
    assert "mobile-app" in row and "web-agent" in row and "bm25, hybrid" in row


@pytest.mark.usefixtures("misses", "tools")
def test_adding_twice_keeps_one_query(staff_client) -> None:
    for _ in range(2):
        staff_client.post("/dashboard/curation/add", {"query": "will it rain", "tool": "get_weather"})
    assert HypotheticalQuery.objects.filter(text="will it rain").count() == 1


@pytest.mark.usefixtures("tools")
def test_an_unknown_tool_is_refused_with_a_message(staff_client) -> None:
    response = staff_client.post("/dashboard/curation/add", {"query": "will it rain", "tool": "no_such_tool"},
                                 follow=True)
    assert "There is no tool named" in response.content.decode()
    assert not HypotheticalQuery.objects.exists()


@pytest.mark.usefixtures("tools")
def test_the_form_needs_a_csrf_token(django_user_model) -> None:
    client = Client(enforce_csrf_checks=True)
    client.force_login(django_user_model.objects.create_user(username="op", password="pw-for-tests-only", is_staff=True))
    response = client.post("/dashboard/curation/add", {"query": "will it rain", "tool": "get_weather"})
    assert response.status_code == 403
    assert not HypotheticalQuery.objects.exists()


def test_only_staff_may_add(client) -> None:
    response = client.post("/dashboard/curation/add", {"query": "x", "tool": "get_weather"})
    assert response.status_code == 302 and not HypotheticalQuery.objects.exists()


def test_hashed_queries_are_listed_without_a_form(staff_client, settings) -> None:
    settings.USAGE_QUERY_STORAGE = "hash"
    usage.record_request(make_record(request_id="secret", query="my secret query", results=[]))
    usage.drain_request_buffer()
    html = staff_client.get("/dashboard/").content.decode()
    curation = html[html.index('id="curation-table"'):]
    assert "not stored" in curation and "my secret query" not in curation and 'name="tool"' not in curation


@pytest.mark.usefixtures("tools")
@pytest.mark.parametrize("logged", ["Umbrella  needed?", " umbrella needed? ", "UMBRELLA\tNEEDED?"])
def test_a_query_already_added_to_a_tool_leaves_the_list_whatever_its_spacing_or_case(staff_client, logged) -> None:
    usage.record_request(make_record(request_id="spaced", query=logged, confidence=0.1))
    usage.drain_request_buffer()
    usage.add_learned_query("get_weather", "umbrella needed?")
    html = staff_client.get("/dashboard/").content.decode()
    assert "umbrella" not in html[html.index('id="curation-table"'):].lower()


@pytest.mark.usefixtures("misses", "tools")
def test_each_query_offers_its_likely_tools_as_one_click_buttons(staff_client) -> None:
    suggestions.refresh_suggestions(likely_tools=lambda texts: {text: ["get_weather", "play_music"] for text in texts})
    html = staff_client.get("/dashboard/").content.decode()
    curation = html[html.index('id="curation-table"'):]
    row = curation[curation.index("will it rain"):curation.index("</tr>", curation.index("will it rain"))]
    assert '<button type="submit"' in row and 'value="get_weather"' in row and 'value="play_music"' in row
    assert 'list="tool-names"' in row  # a tool the ranking did not guess can still be typed
    staff_client.post("/dashboard/curation/add", {"query": "will it rain", "tool": "play_music"})
    assert HypotheticalQuery.objects.get(text="will it rain").tool.name == "play_music"
