"""Records a web process kept while Redis was down go to Redis with the first record Redis takes
again, oldest first: nothing else would ever move them out of the process."""
import json

import pytest

from shared.redis_client import get_redis
from usage import services as usage

from .records import make_record

pytestmark = [pytest.mark.django_db]


def buffered_in_redis() -> list[str]:
    return [json.loads(p)["request_id"] for p in get_redis().lrange(usage.REQUESTS_KEY, 0, -1)]


def test_the_first_record_redis_takes_again_brings_the_kept_ones_in_order(settings) -> None:
    live_url = settings.REDIS_URL
    settings.REDIS_URL, settings.USAGE_REDIS_RETRY_SECONDS = "redis://127.0.0.1:1/15", 0
    get_redis.cache_clear()
    for i in range(4):
        usage.record_request(make_record(request_id=f"kept-{i}"))
    assert usage.usage_health()["buffered_in_process"] == 4

    settings.REDIS_URL = live_url
    get_redis.cache_clear()
    usage.record_request(make_record(request_id="back"))
    assert usage.usage_health()["buffered_in_process"] == 0
    assert buffered_in_redis() == ["kept-0", "kept-1", "kept-2", "kept-3", "back"]

