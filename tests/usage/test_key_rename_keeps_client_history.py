"""A curator renames an API key: the dashboard shows one client under the new name, with all its history."""
from datetime import date

import pytest

from api.models import ApiKey
from api.services import create_api_key
from usage import selectors
from usage import services as usage
from usage.models import DailyQueryMiss, DailyToolUsage, DailyUsage

from .records import at, make_record

pytestmark = pytest.mark.django_db

NOW = at("2026-03-10 12:00")
PAST_DAY = date(2026, 3, 8)
MISS = dict(query="xyzzy", results=[], confidence=None, categories=[])


def _log(key: ApiKey, request_id: str, when: str, **fields) -> None:
    """One request of the key, as the route endpoint records it: under the key's name of the moment."""
    usage.record_request(make_record(request_id=request_id, api_key_id=key.pk, client=key.name,
                                     created_at=at(when), **fields))


def _rename_in_admin(admin_client, key: ApiKey, name: str) -> None:
    response = admin_client.post(f"/admin/api/apikey/{key.pk}/change/", {
        "name": name, "scopes": ["route"], "toolset": "", "pinned_tools": "", "rate_per_minute": "",
        "filter_query_path": "", "filter_tools_path": "",
    })
    assert response.status_code == 302, response.content.decode()[:2000]


def _clients(client: str | None = None) -> dict[str, int]:
    """The dashboard's clients table of the last 7 days (of one client when given): name -> requests."""
    data = selectors.dashboard_data(selectors.resolve_range("7d", NOW, client=client))
    return {c.client: c.requests for c in data.clients}


def test_a_renamed_key_keeps_its_whole_history_under_its_new_name(admin_client_logged_in) -> None:
    key, _ = create_api_key("mobile-app")
    _log(key, "rolled-up", "2026-03-08 09:00")
    _log(key, "rolled-up-miss", "2026-03-08 10:00", **MISS)
    usage.drain_request_buffer()
    usage.prune_and_roll_up(NOW)
    _log(key, "today", "2026-03-10 08:00")
    usage.drain_request_buffer()
    _log(key, "still-in-redis", "2026-03-10 09:00")

    _rename_in_admin(admin_client_logged_in, key, "mobile-app-v2")
    usage.drain_request_buffer()

    assert _clients() == {"mobile-app-v2": 4}
    client_view = selectors.dashboard_data(selectors.resolve_range("7d", NOW, client="mobile-app-v2"))
    assert client_view.totals.requests == 4
    assert [(m.query, m.clients) for m in client_view.curation] == [("xyzzy", ["mobile-app-v2"])]
    assert _clients("mobile-app") == {}


def test_a_name_another_key_gave_up_holds_only_its_new_owners_history(admin_client_logged_in) -> None:
    first, _ = create_api_key("agent")
    second, _ = create_api_key("batch-job")
    _log(first, "first-past", "2026-03-08 09:00")
    _log(second, "second-past", "2026-03-08 10:00")
    usage.drain_request_buffer()
    usage.prune_and_roll_up(NOW)
    _log(first, "first-in-redis", "2026-03-10 08:00")

    _rename_in_admin(admin_client_logged_in, first, "agent-old")
    _rename_in_admin(admin_client_logged_in, second, "agent")
    usage.drain_request_buffer()

    assert _clients() == {"agent-old": 2, "agent": 1}


def test_renaming_to_a_deleted_keys_name_merges_the_two_histories(admin_client_logged_in) -> None:
    gone, _ = create_api_key("gone")
    fresh, _ = create_api_key("fresh")
    _log(gone, "gone-1", "2026-03-08 09:00", latency_ms=10, **MISS)
    _log(gone, "gone-2", "2026-03-08 09:30", latency_ms=10)
    _log(fresh, "fresh-1", "2026-03-08 10:00", latency_ms=20, **MISS)
    _log(fresh, "fresh-2", "2026-03-08 11:00", latency_ms=20)
    usage.drain_request_buffer()
    usage.prune_and_roll_up(NOW)
    gone.delete()

    _rename_in_admin(admin_client_logged_in, fresh, "gone")

    day = DailyUsage.objects.get(client="gone", day=PAST_DAY)
    assert (day.requests, day.latency_sum_ms, day.no_results) == (4, 60.0, 2)
    assert DailyToolUsage.objects.get(client="gone", day=PAST_DAY, tool="play_music").offered == 2
    assert DailyQueryMiss.objects.get(client="gone", day=PAST_DAY).count == 2
    assert DailyQueryMiss.objects.get(client=None, day=PAST_DAY).clients == ["gone"]
    assert _clients() == {"gone": 4}


def test_deleting_a_key_keeps_its_history_under_its_name() -> None:
    key, _ = create_api_key("retired")
    _log(key, "drained", "2026-03-09 09:00")
    usage.drain_request_buffer()
    _log(key, "still-in-redis", "2026-03-10 09:00")

    key.delete()
    usage.drain_request_buffer()

    assert _clients() == {"retired": 2}
