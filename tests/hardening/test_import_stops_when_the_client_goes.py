"""An import whose client has gone stops instead of finishing for nobody: under gunicorn the import
looks at the connection every few tools, rolls back, and stores nothing."""
from __future__ import annotations

import json
import socket
import time

import pytest
from django.conf import settings

from api.services import create_api_key
from tests.reliability.webprocess import WebProcess
from tests.support.worker import wait_for
from tests.support.worker import worker_database_url as database_url
from toolcatalog.models import Tool

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_closed_connection_stops_the_import_and_nothing_is_stored() -> None:
    _, key = create_api_key("leaver", ["catalog"])
    document = {"format": "toolcatalog/v1",
                "tools": [{"name": f"tool_{i}", "description": f"Tool number {i}"} for i in range(4000)]}
    body = json.dumps({"document": document}).encode()
    web = WebProcess({"DATABASE_URL": database_url(), "REDIS_URL": settings.REDIS_URL}, "client-gone")
    logged_before = web.log_path.stat().st_size  # the log file is appended to across runs
    try:
        with socket.create_connection(("127.0.0.1", web.port)) as client:
            client.sendall(b"POST /api/v1/catalog/import HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                           b"Authorization: Bearer " + key.encode() + b"\r\nContent-Type: application/json\r\n"
                           b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body)
            time.sleep(2)  # the import is under way (4,000 tools take half a minute)
        started = time.monotonic()
        assert wait_for(lambda: "catalog import abandoned" in web.log_path.read_text()[logged_before:],
                          timeout=30)
        assert time.monotonic() - started < 15
        assert not Tool.objects.exists()
    finally:
        web.stop()
