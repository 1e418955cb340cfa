from __future__ import annotations

from collections.abc import Iterator

import pytest

from api.services import create_api_key
from gateway import filtering as filter_gateway
from shared.redis_client import get_redis
from tests.gateway.proxy_support import point_proxy_at
from tests.support.openai_server import FakeOpenAI
from toolcatalog.embeddings import get_provider


@pytest.fixture(autouse=True)
def fresh_filter_caches() -> Iterator[None]:
    filter_gateway.clear_process_caches()
    yield
    filter_gateway.clear_process_caches()


@pytest.fixture(autouse=True)
def forgotten_searches() -> None:
    """Deferred loading remembers searches and found tools per key id and conversation (or answer id) for a day;
    key ids and the fake upstreams' answer ids (resp_1, resp_2...) come again in the next test or run, which would
    otherwise get this one's tools and searches put back."""
    get_redis().delete(*get_redis().keys("toolrouter:deferred:*") or ["none"])


# The proxy tests: a live toolrouter (pytest-django's live_server) in front of a fake upstream.
@pytest.fixture
def upstream(settings) -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as server:
        point_proxy_at(settings, server.base_url)
        settings.PROXY_UPSTREAM_API_KEY = "sk-upstream-configured"
        settings.PROXY_ANTHROPIC_UPSTREAM_API_KEY = "sk-ant-configured"
        get_provider().embed(["warm up the model"])
        yield server


@pytest.fixture
def our_key(transactional_db) -> str:
    return create_api_key("proxy-client", ["route"], None)[1]
