import pytest
from django.test import Client

from toolcatalog.models import HypotheticalQuery, QuerySource, Tool
from usage import services as usage

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


@pytest.mark.usefixtures("misses", "tools")
def test_one_click_adds_a_learned_hypothetical_query(staff_client) -> None:
    response = staff_client.post("/dashboard/curation/add",
                                 {"query": "will it rain", "tool": "get_weather", "range": "7d"}, follow=True)
    assert response.redirect_chain[-1][0].startswith("/dashboard/?range=7d")
    query = HypotheticalQuery.objects.get(text="will it rain")
    assert (query.tool.name, query.source) == ("get_weather", QuerySource.LEARNED)
    assert "as a hypothetical query of get_weather" in response.content.decode()
    assert "added to get_weather" in response.content.decode()


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


@pytest.mark.usefixtures("misses", "tools")
def test_the_likely_tools_replace_a_typed_name(staff_client) -> None:
    from usage import suggestions

    suggestions.refresh_suggestions(likely_tools=lambda texts: {text: ["get_weather", "play_music"] for text in texts})
    html = staff_client.get("/dashboard/").content.decode()
    curation = html[html.index('id="curation-table"'):]
    row = curation[curation.index("will it rain"):curation.index("</tr>", curation.index("will it rain"))]
    assert 'value="get_weather"' in row and 'value="play_music"' in row and 'list="tool-names"' not in curation
    staff_client.post("/dashboard/curation/add", {"query": "will it rain", "tool": "get_weather"})
    suggestions.refresh_suggestions(likely_tools=lambda texts: {text: ["get_weather", "play_music"] for text in texts})
    html = staff_client.get("/dashboard/").content.decode()
    row = html[html.index("will it rain", html.index('id="curation-table"')):]
    row = row[:row.index("</tr>")]
    assert "added to get_weather" in row and 'value="play_music"' not in row  # the query has its tool now
