from __future__ import annotations

from collections.abc import Iterator

import pytest

from api.services import create_api_key
from tests.reliability.webprocess import WebProcess
from tests.support.catalog import load_demo_catalog
from tests.support.worker import worker_database_url


@pytest.fixture
def web(transactional_db) -> Iterator[WebProcess]:
    """A real gunicorn process (as docker-compose runs it) over the demo catalog."""
    load_demo_catalog()
    process = WebProcess({"DATABASE_URL": worker_database_url(), "ROUTE_EMBEDDING_TIMEOUT_SECONDS": "30"}, "mcp")
    try:
        yield process
    finally:
        process.stop()


@pytest.fixture
def key(db) -> str:
    """An API key with the route scope, for posting to /mcp with tests.support.mcp_http."""
    return create_api_key("mcp-client")[1]
