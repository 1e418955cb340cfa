import pytest

from shared.redis_client import get_redis
from usage import services as usage
from usage.models import RequestLog

from .records import make_record

pytestmark = pytest.mark.django_db

QUERY = "Play some JAZZ  please"


def _stored(settings, policy: str) -> RequestLog:
    settings.USAGE_QUERY_STORAGE = policy
    usage.record_request(make_record(request_id=policy, query=QUERY))
    buffered = get_redis().lindex(usage.REQUESTS_KEY, -1).decode()
    if policy != "store":
        assert "JAZZ" not in buffered  # the text never reaches Redis either
    usage.drain_request_buffer()
    return RequestLog.objects.get(request_id=policy)


def test_store_keeps_the_query_and_its_hash(settings) -> None:
    row = _stored(settings, "store")
    assert row.query == QUERY and row.query_hash == usage.query_hash(QUERY)


def test_hash_keeps_only_the_hash(settings) -> None:
    row = _stored(settings, "hash")
    assert row.query is None and len(row.query_hash) == 64


def test_drop_keeps_neither(settings) -> None:
    row = _stored(settings, "drop")
    assert row.query is None and row.query_hash == ""


def test_the_hash_ignores_case_and_spacing() -> None:
    assert usage.query_hash("Play some JAZZ  please") == usage.query_hash("play some jazz please")
