"""A key revoked while Redis is unreachable (so its stamp cannot be replaced) is refused at once,
and still refused once Redis is back with the old stamp: a process that saw Redis fail drops
the copies it held before."""
from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from api.services import create_api_key, revoke_api_key
from shared.redis_client import redis_ping
from tests.support.worker import wait_for

pytestmark = pytest.mark.django_db
URL = "/api/v1/tool-search/definition"


def test_a_key_revoked_while_redis_is_down_stays_refused_once_it_is_back(private_redis, settings) -> None:
    settings.API_THROTTLE_REDIS_RETRY_SECONDS = 0  # every request tries Redis: nothing hides a stale copy
    api_key, raw_key = create_api_key("revoked-during-outage")
    agent = APIClient()
    agent.credentials(HTTP_AUTHORIZATION=f"Bearer {raw_key}")
    assert agent.get(URL).status_code == 200
    assert agent.get(URL).status_code == 200  # now from this process's copy

    private_redis.stop()
    revoke_api_key(api_key)  # the stamp stays as it was: logged
    assert agent.get(URL).status_code == 401  # read from the database while Redis is away

    private_redis.start()  # same data: the stamp the copy was read under is back
    assert wait_for(lambda: redis_ping() is None, timeout=10)
    assert agent.get(URL).status_code == 401
