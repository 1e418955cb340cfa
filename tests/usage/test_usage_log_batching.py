import json

import pytest

from api.services import create_api_key
from shared.redis_client import get_redis
from usage import services as usage
from usage.models import RequestLog

from .records import make_record

pytestmark = pytest.mark.django_db


def test_record_request_buffers_in_redis_without_touching_the_database() -> None:
    usage.record_request(make_record(request_id="r-1"))
    assert get_redis().llen(usage.REQUESTS_KEY) == 1
    assert not RequestLog.objects.exists()


def test_drain_writes_every_buffered_record_with_all_fields() -> None:
    key, _ = create_api_key("batching-client", scopes=["route"])
    usage.record_request(make_record(request_id="r-1", api_key_id=key.pk, client=key.name, toolset="media",
                                     strategy="auto:hybrid", confidence=0.42, session_id="s-1"))
    assert usage.drain_request_buffer() == 1
    row = RequestLog.objects.get(request_id="r-1")
    assert (row.api_key_id, row.client, row.toolset, row.session_id) == (key.pk, "batching-client", "media", "s-1")
    assert (row.strategy, row.strategy_class, row.confidence) == ("auto:hybrid", "hybrid", 0.42)
    assert row.results[0] == {"name": "play_music", "rank": 1, "score": 0.9}
    assert (row.tokens_selected, row.tokens_catalog, row.tokens_saved) == (400, 10_000, 9_600)
    assert get_redis().llen(usage.REQUESTS_KEY) == 0


def test_drain_takes_at_most_max_items_and_keeps_the_rest_in_order() -> None:
    for i in range(2500):
        usage.record_request(make_record(request_id=f"r-{i}"))
    assert usage.drain_request_buffer(max_items=1200) == 1200
    assert RequestLog.objects.count() == 1200
    assert get_redis().llen(usage.REQUESTS_KEY) == 1300
    assert usage.drain_request_buffer() == 1300
    assert RequestLog.objects.count() == 2500


def test_a_record_drained_twice_is_stored_once() -> None:
    record = make_record(request_id="same")
    usage.record_request(record)
    usage.record_request(record)
    usage.drain_request_buffer()
    assert RequestLog.objects.filter(request_id="same").count() == 1


def test_a_malformed_buffered_entry_is_counted_as_dropped_and_the_rest_written() -> None:
    usage.record_request(make_record(request_id="good-1"))
    get_redis().rpush(usage.REQUESTS_KEY, "{not json")
    usage.record_request(make_record(request_id="good-2"))
    usage.drain_request_buffer()
    assert set(RequestLog.objects.values_list("request_id", flat=True)) == {"good-1", "good-2"}
    assert usage.usage_health()["dropped_total"] == 1


def test_a_record_of_a_deleted_api_key_is_kept_without_the_key() -> None:
    key, _ = create_api_key("short-lived", scopes=["route"])
    usage.record_request(make_record(request_id="orphan", api_key_id=key.pk, client=key.name))
    key.delete()
    usage.drain_request_buffer()
    row = RequestLog.objects.get(request_id="orphan")
    assert row.api_key_id is None and row.client == "short-lived"


def test_oversized_fields_are_cut_rather_than_blocking_the_buffer() -> None:
    usage.record_request(make_record(request_id="long", client="c" * 500, categories=["k" * 300]))
    usage.drain_request_buffer()
    row = RequestLog.objects.get(request_id="long")
    assert len(row.client) == 128 and len(row.categories[0]) == 128


@pytest.mark.parametrize(("strategy", "fallback", "expected"), [
    ("bm25", False, "fast"), ("auto:fast", False, "fast"), ("vector", False, "semantic"),
    ("hybrid", False, "hybrid"), ("auto:hybrid", False, "hybrid"), ("hierarchical", False, "hierarchical"),
    ("hierarchical:llm", False, "hierarchical"), ("hybrid", True, "fallback"), ("mystery", False, "other"),
])
def test_strategy_names_are_grouped_for_the_mix(strategy: str, fallback: bool, expected: str) -> None:
    assert usage.strategy_class(strategy, fallback) == expected


def test_the_buffered_payload_is_compact_json() -> None:
    usage.record_request(make_record(request_id="r-json"))
    payload = json.loads(get_redis().lindex(usage.REQUESTS_KEY, 0))
    assert payload["request_id"] == "r-json" and payload["created_at"].endswith("+00:00")
