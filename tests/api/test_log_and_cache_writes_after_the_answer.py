"""The usage record and the shared query vector are written once the answer has gone out, not
while the client waits, and never lost: the server closing the response writes them."""
from __future__ import annotations

import io
import json
import logging
import sys
from collections.abc import Iterator
from typing import Any

import pytest
from django.core.handlers.wsgi import WSGIHandler
from django.core.signals import request_finished, request_started
from django.db import close_old_connections
from django.http import HttpRequest, HttpResponse
from django.test import RequestFactory

from api.services import create_api_key
from routing.query_embeddings import query_embedder
from shared.after_response import after_response
from shared.redis_client import get_redis
from toolcatalog.embeddings import get_provider
from toolrouter.middleware import AfterResponseMiddleware
from usage import services as usage

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("demo_catalog", "fresh_usage_buffers")]


@pytest.fixture
def connection_kept() -> Iterator[None]:
    """As Django's test client does: the test's transaction stays open across the request."""
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


def wsgi_post(path: str, key: str, body: dict[str, Any]) -> tuple[str, Any]:
    """The request as a WSGI server makes it: returns the status and the response iterable, which
    the server closes once it has sent the answer."""
    data = json.dumps(body).encode()
    environ = {
        "REQUEST_METHOD": "POST", "PATH_INFO": path, "SERVER_NAME": "localhost", "SERVER_PORT": "80",
        "HTTP_HOST": "localhost", "CONTENT_TYPE": "application/json", "CONTENT_LENGTH": str(len(data)),
        "HTTP_AUTHORIZATION": f"Bearer {key}", "wsgi.input": io.BytesIO(data), "wsgi.url_scheme": "http",
        "REMOTE_ADDR": "127.0.0.1", "SERVER_PROTOCOL": "HTTP/1.1", "wsgi.errors": sys.stderr,
    }
    statuses: list[str] = []
    body_iterable = WSGIHandler()(environ, lambda status, headers: statuses.append(status))
    return statuses[0], body_iterable


def test_route_answer_is_whole_before_its_log_and_query_vector_are_written(connection_kept) -> None:
    _, key = create_api_key("after-answer", ["route"])
    query = "play some jazz after the answer"
    vector_key = query_embedder(get_provider())._key(query)
    get_redis().delete(vector_key)

    status, body_iterable = wsgi_post("/api/v1/route", key, {"query": query, "strategy": "hybrid"})
    answer = json.loads(b"".join(body_iterable))
    assert status.startswith("200") and answer["matches"]
    assert get_redis().llen(usage.REQUESTS_KEY) == 0
    assert get_redis().exists(vector_key) == 0

    body_iterable.close()  # the server has sent the answer
    logged = [json.loads(r) for r in get_redis().lrange(usage.REQUESTS_KEY, 0, -1)]
    assert [r["request_id"] for r in logged] == [answer["request_id"]]
    assert get_redis().exists(vector_key) == 1


def test_work_runs_at_once_outside_a_request() -> None:
    done: list[str] = []
    after_response(done.append, "now")
    assert done == ["now"]


def test_queued_work_runs_in_order_when_the_response_closes_and_a_failure_stops_nothing(caplog) -> None:
    done: list[str] = []

    def view(request: HttpRequest) -> HttpResponse:
        after_response(done.append, "first")
        after_response(int, "not a number")
        after_response(done.append, "third")
        return HttpResponse("answer")

    response = AfterResponseMiddleware(view)(RequestFactory().get("/"))
    assert done == []
    with caplog.at_level(logging.ERROR, logger="shared.after_response"):
        response.close()
    assert done == ["first", "third"]
    assert "work after the response failed" in caplog.text and "ValueError" in caplog.text
    after_response(done.append, "after the request")
    assert done[-1] == "after the request"


def test_work_queued_before_an_error_still_runs() -> None:
    done: list[str] = []

    def failing_view(request: HttpRequest) -> HttpResponse:
        after_response(done.append, "logged")
        raise RuntimeError("the view broke")

    with pytest.raises(RuntimeError):
        AfterResponseMiddleware(failing_view)(RequestFactory().get("/"))
    assert done == ["logged"]
