"""Two web processes that both serve a key from their own copy: a revocation, new scopes or a new
rate, made by a third process, count from the very next request in both. A write that bypasses
the ORM (raw SQL) cannot replace the stamp; it counts once the stamp expires."""
from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
from django.conf import settings
from django.db import connection

from api.models import ApiKey
from api.services import create_api_key, revoke_api_key
from shared.redis_client import STAMP_TTL_SECONDS
from tests.reliability.webprocess import WebProcess, call
from tests.support.worker import wait_for, worker_database_url

pytestmark = pytest.mark.django_db(transaction=True)
URL = "/api/v1/tool-search/definition"  # route scope, no catalog needed


@pytest.fixture
def two_web_processes() -> Iterator[list[WebProcess]]:
    env = {"DATABASE_URL": worker_database_url(), "REDIS_URL": settings.REDIS_URL}
    webs = [WebProcess(env, f"key-copies-{i}") for i in range(2)]
    try:
        yield webs
    finally:
        for web in webs:
            web.stop()


def statuses(webs: list[WebProcess], raw_key: str) -> list[int]:
    return [call(web.url(URL), raw_key).status for web in webs]


def test_a_revoked_key_is_refused_by_both_processes_on_their_next_request(two_web_processes) -> None:
    api_key, raw_key = create_api_key("shared-agent")
    assert statuses(two_web_processes, raw_key) == [200, 200]  # each process reads the key once...
    assert statuses(two_web_processes, raw_key) == [200, 200]  # ...and then serves it from its copy
    revoke_api_key(api_key)
    refused = [call(web.url(URL), raw_key) for web in two_web_processes]
    assert [a.status for a in refused] == [401, 401]
    assert all(a.json()["error"] == "unauthenticated" for a in refused)


def test_new_scopes_and_a_new_rate_count_from_the_next_request_in_both(two_web_processes) -> None:
    api_key, raw_key = create_api_key("changing-agent")
    assert statuses(two_web_processes, raw_key) == [200, 200]
    assert statuses(two_web_processes, raw_key) == [200, 200]
    ApiKey.objects.filter(pk=api_key.pk).update(scopes=["catalog"])
    assert statuses(two_web_processes, raw_key) == [403, 403]
    ApiKey.objects.filter(pk=api_key.pk).update(scopes=["route"], rate_per_minute=1)
    assert statuses(two_web_processes, raw_key) == [429, 429]  # this minute's requests already count


def test_a_raw_sql_revocation_counts_once_the_stamp_expires(two_web_processes) -> None:
    _, raw_key = create_api_key("raw-sql-agent")
    assert statuses(two_web_processes, raw_key) == [200, 200]
    with connection.cursor() as cursor:
        cursor.execute("UPDATE api_apikey SET revoked = true WHERE name = 'raw-sql-agent'")
    revoked_at = time.monotonic()
    assert wait_for(lambda: statuses(two_web_processes, raw_key) == [401, 401], timeout=STAMP_TTL_SECONDS + 5)
    assert time.monotonic() - revoked_at <= STAMP_TTL_SECONDS + 1
