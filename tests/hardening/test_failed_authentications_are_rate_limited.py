"""Failed authentications (unknown or revoked keys) are limited per client address over a sliding
minute: past AUTH_FAILURES_PER_MINUTE the address gets 429 with Retry-After, with no database read
for the key. Keys the process already knows keep working; other addresses are not affected."""
from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from api.services import create_api_key, revoke_api_key
from shared.redis_client import get_redis

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def few_failures(settings):
    settings.AUTH_FAILURES_PER_MINUTE = 5
    redis = get_redis()
    for key in redis.scan_iter("toolrouter:authfail:*"):
        redis.delete(key)


def attempt(key: str, address: str = "203.0.113.7", path: str = "/api/v1/route", **headers):
    client = APIClient(REMOTE_ADDR=address)
    return client.post(path, {"query": "weather"}, format="json", HTTP_AUTHORIZATION=f"Bearer {key}", **headers)


def test_unknown_keys_are_refused_with_429_past_the_limit_without_a_database_read() -> None:
    for i in range(5):
        assert attempt(f"tr_guess_{i}").status_code == 401
    with CaptureQueriesContext(connection) as queries:
        refused = attempt("tr_guess_next")
    assert refused.status_code == 429
    assert refused.json()["error"] == "too_many_failed_authentications"
    assert "AUTH_FAILURES_PER_MINUTE" in refused.json()["message"]
    assert 1 <= int(refused["Retry-After"]) <= 120
    assert not [q for q in queries.captured_queries if "api_apikey" in q["sql"]]


def test_revoked_keys_count_as_failures() -> None:
    api_key, raw = create_api_key("soon-revoked", ["route"])
    revoke_api_key(api_key)
    statuses = [attempt(raw).status_code for _ in range(6)]
    assert statuses == [401] * 5 + [429]


def test_other_addresses_and_known_keys_keep_working() -> None:
    _, good = create_api_key("good", ["route"])
    assert attempt(good).status_code != 401  # this process now knows the key
    for i in range(6):
        attempt(f"tr_guess_{i}")
    assert attempt("tr_guess_more").status_code == 429
    assert attempt(good).status_code not in (401, 429)
    assert attempt("tr_guess_elsewhere", address="198.51.100.9").status_code == 401


def test_the_proxy_counts_failures_the_same_way() -> None:
    for i in range(5):
        assert attempt(f"tr_guess_{i}", path="/v1/chat/completions", HTTP_X_TOOLROUTER_KEY=f"tr_x_{i}").status_code == 401
    assert attempt("tr_guess", path="/v1/chat/completions", HTTP_X_TOOLROUTER_KEY="tr_x_next").status_code == 429


def test_a_known_key_keeps_working_after_its_stamp_moved_on() -> None:
    _, good = create_api_key("good", ["route"])
    assert attempt(good).status_code != 401  # this process now knows the key
    for i in range(6):
        attempt(f"tr_guess_{i}")
    create_api_key("another")  # any write to a key replaces the stamp, as 10 s of quiet would
    assert attempt(good).status_code not in (401, 429)
    assert attempt("tr_guess_more").status_code == 429
