"""The usage models moved from the `routing` app to `usage` without touching their tables.

A fresh database gets them through routing.0001 -> routing.0002 -> usage.0001 (the test database
itself is built that way); a database that had only applied routing.0001_initial, with rows in
it, keeps its rows when it migrates on.
"""
import pytest
from django.core.management import call_command
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone

from usage.models import RequestLog

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE_THE_MOVE = [("routing", "0001_initial"), ("usage", None)]


def migrate(targets: list[tuple[str, str | None]]) -> None:
    executor = MigrationExecutor(connection)
    executor.migrate(targets)


def leaf_nodes() -> list[tuple[str, str]]:
    executor = MigrationExecutor(connection)
    return [node for node in executor.loader.graph.leaf_nodes() if node[0] in ("routing", "usage")]


def test_a_database_from_before_the_move_keeps_its_rows() -> None:
    migrate(BEFORE_THE_MOVE)
    try:
        with connection.cursor() as cursor:  # as the old routing app wrote it
            cursor.execute(
                "INSERT INTO routing_requestlog (created_at, request_id, client, endpoint, query_hash, strategy,"
                " strategy_class, fallback, categories, results, latency_ms, tokens_selected, tokens_catalog,"
                " tokens_saved) VALUES (now(), 'from-routing', 'c', 'route', '', 'bm25', 'fast', false, '{}',"
                " '[]', 1.5, 0, 0, 0)")
    finally:
        migrate(leaf_nodes())
    row = RequestLog.objects.get(request_id="from-routing")
    assert row.latency_ms == 1.5
    RequestLog.objects.create(created_at=timezone.now(), request_id="after-the-move", endpoint="route",
                              strategy_class="fast", latency_ms=2.0)
    assert RequestLog.objects.count() == 2


def test_the_models_match_their_migrations() -> None:
    call_command("makemigrations", "--check", "--dry-run", verbosity=0)  # SystemExit(1) on a difference
