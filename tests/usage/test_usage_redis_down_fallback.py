import time

import pytest

from shared.redis_client import get_redis
from usage import services as usage
from usage.models import RequestLog

from .records import make_record

pytestmark = [pytest.mark.django_db]


@pytest.mark.usefixtures("redis_down")
def test_recording_without_redis_neither_raises_nor_waits() -> None:
    started = time.perf_counter()
    for i in range(20):
        usage.record_request(make_record(request_id=f"down-{i}"))
    assert time.perf_counter() - started < 2.0
    assert usage.usage_health()["buffered_in_process"] == 20


@pytest.mark.usefixtures("redis_down")
def test_the_in_process_buffer_is_written_straight_to_the_database_in_batches(settings) -> None:
    settings.USAGE_LOCAL_FLUSH_BATCH = 10
    for i in range(25):
        usage.record_request(make_record(request_id=f"down-{i}"))
    assert RequestLog.objects.count() == 20
    assert usage.drain_request_buffer() == 5  # the drainer empties what is left, Redis or not
    assert RequestLog.objects.count() == 25


def test_overflow_is_counted_in_process_and_later_in_redis(settings) -> None:
    settings.USAGE_LOCAL_BUFFER_MAX = 5
    live_url = settings.REDIS_URL
    settings.REDIS_URL, settings.USAGE_REDIS_RETRY_SECONDS = "redis://127.0.0.1:1/15", 0
    get_redis.cache_clear()
    for i in range(8):
        usage.record_request(make_record(request_id=f"over-{i}"))
    health = usage.usage_health()
    assert (health["redis_ok"], health["dropped_in_process"], health["dropped_total"]) == (False, 3, 3)

    settings.REDIS_URL = live_url
    get_redis.cache_clear()
    usage.drain_request_buffer()
    assert RequestLog.objects.count() == 5
    assert int(get_redis().get(usage.DROPPED_KEY)) == 3
    assert usage.usage_health()["dropped_total"] == 3  # reported once, not counted twice


def test_redis_is_skipped_for_a_while_after_a_failure(settings) -> None:
    settings.REDIS_URL, settings.USAGE_REDIS_RETRY_SECONDS = "redis://127.0.0.1:1/15", 60
    get_redis.cache_clear()
    usage.record_request(make_record(request_id="first"))
    settings.REDIS_URL = "redis://127.0.0.1:2/15"  # would fail too; the point is that it is not tried
    get_redis.cache_clear()
    started = time.perf_counter()
    usage.record_request(make_record(request_id="second"))
    assert time.perf_counter() - started < 0.05
    assert usage.usage_health()["buffered_in_process"] == 2


def test_dropped_records_show_on_the_dashboard(staff_client) -> None:
    get_redis().set(usage.DROPPED_KEY, 42)
    response = staff_client.get("/dashboard/")
    assert response.status_code == 200
    assert b'id="dropped">42' in response.content

