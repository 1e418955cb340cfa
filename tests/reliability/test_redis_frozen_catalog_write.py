"""A frozen Redis (SIGSTOP: connections open, nothing answered), unlike a dead one, refuses
nothing: a catalog write must still answer within seconds, keep its change, and leave the row
pending for the beat task to re-send once Redis answers again."""
from __future__ import annotations

import os
import signal

import pytest

from api.services import create_api_key
from tests.support.catalog import load_demo_catalog
from tests.support.worker import worker_database_url as database_url
from toolcatalog.models import EmbeddingStatus, Tool

from .webprocess import WebProcess, call

pytestmark = pytest.mark.django_db(transaction=True)
NEW_TOOL = {"name": "fry_eggs", "description": "Fries eggs to order, sunny side up or over easy."}


def test_a_catalog_write_answers_while_redis_is_frozen(private_redis) -> None:
    load_demo_catalog(embed=False)
    _, key = create_api_key("frozen-redis-curator", scopes=["catalog"])
    web = WebProcess({"DATABASE_URL": database_url(), "REDIS_URL": private_redis.url}, "redis-frozen")
    try:
        assert call(web.url("/readyz")).status == 200
        os.kill(private_redis.process.pid, signal.SIGSTOP)
        try:
            answer = call(web.url("/api/v1/tools"), key, NEW_TOOL, timeout=60)
        finally:
            os.kill(private_redis.process.pid, signal.SIGCONT)
    finally:
        web.stop()
    assert answer.status == 201 and answer.is_json, answer
    assert answer.seconds < 15, f"the write took {answer.seconds:.1f} s"
    assert Tool.objects.get(name="fry_eggs").embedding_status == EmbeddingStatus.PENDING
