"""Per-key throttling in Redis: 429 with Retry-After past the key's rate; a Redis outage follows the setting."""
from __future__ import annotations

import pytest

from api.models import ApiKey
from tests.support.catalog import api_client

pytestmark = pytest.mark.django_db

# A cheap endpoint with the route scope: throttling runs before any view, the same for all.
URL = "/api/v1/tool-search/definition"


def client_with_rate(name: str, rate: int | None):
    client = api_client(["route"], name=name)
    ApiKey.objects.filter(name=name).update(rate_per_minute=rate)
    return client


def test_past_the_keys_rate_the_answer_is_429_json_with_retry_after() -> None:
    client = client_with_rate("slow-lane", 3)
    statuses = [client.get(URL).status_code for _ in range(3)]
    refused = client.get(URL)
    assert statuses == [200, 200, 200]
    assert refused.status_code == 429
    assert refused["Content-Type"] == "application/json"
    body = refused.json()
    assert body["error"] == "rate_limited" and body["message"]
    retry_after = int(refused["Retry-After"])
    assert 1 <= retry_after <= 120
    assert body["details"] == {"retry_after_seconds": retry_after}


def test_each_key_has_its_own_rate_and_its_own_count() -> None:
    tight, roomy = client_with_rate("tight", 1), client_with_rate("roomy", 5)
    assert tight.get(URL).status_code == 200
    assert tight.get(URL).status_code == 429
    roomy_statuses = [roomy.get(URL).status_code for _ in range(5)]
    assert roomy_statuses == [200] * 5  # the tight key's refusals took nothing from it
    assert roomy.get(URL).status_code == 429


def test_a_key_without_its_own_rate_gets_the_default(settings) -> None:
    settings.API_RATE_PER_MINUTE = 2
    client = client_with_rate("default-rate", None)
    statuses = [client.get(URL).status_code for _ in range(3)]
    assert statuses == [200, 200, 429]


def test_fail_open_lets_requests_through_and_counts_them_while_redis_is_gone(private_redis) -> None:
    from api.throttling import throttle_health

    client = client_with_rate("open-when-down", 1)
    assert client.get(URL).status_code == 200
    private_redis.stop()
    before = throttle_health()["unthrottled_requests"]
    statuses = [client.get(URL).status_code for _ in range(4)]
    assert statuses == [200] * 4  # over the rate of 1, but nothing can count it
    assert throttle_health()["unthrottled_requests"] - before == 4


def test_fail_closed_refuses_with_a_json_503_while_redis_is_gone(settings, private_redis) -> None:
    settings.API_THROTTLE_FAIL_OPEN = False
    client = client_with_rate("closed-when-down", 100)
    private_redis.stop()
    response = client.get(URL)
    assert response.status_code == 503
    assert response.json()["error"] == "rate_limiter_unavailable"
