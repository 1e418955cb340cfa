"""Databases from before per-client rollups keep each client's daily totals as that client's rows."""
from datetime import date

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from usage.models import DailyUsage

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = [("usage", "0004_learning_from_traffic")]


def migrate(targets: list[tuple[str, str]]) -> None:
    MigrationExecutor(connection).migrate(targets)


def latest() -> list[tuple[str, str]]:
    return [node for node in MigrationExecutor(connection).loader.graph.leaf_nodes() if node[0] == "usage"]


def test_client_totals_become_client_rows_and_go_back() -> None:
    migrate(BEFORE)
    try:
        with connection.cursor() as cursor:  # as the rollup job of 0004 wrote them
            cursor.execute(
                "INSERT INTO routing_dailyusage (day, requests, route_requests, tool_search_requests,"
                " filter_requests, proxy_requests, latency_sum_ms, latency_histogram, tokens_selected,"
                " tokens_catalog, tokens_saved, strategy_fast, strategy_semantic, strategy_hybrid,"
                " strategy_hierarchical, strategy_fallback, strategy_other, low_confidence, no_results, feedback,"
                " feedback_success, feedback_failure, tools_used, tools_offered_and_used, tools_missed, rolled_up_at)"
                " VALUES ('2026-03-08', 5, 5, 0, 0, 0, 50, '{}', 0, 500, 450, 4, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0,"
                " 0, 0, 0, now())")
            cursor.execute(
                "INSERT INTO routing_dailyclientusage (day, client, requests, latency_sum_ms, tokens_saved,"
                " tokens_catalog, fallback) VALUES ('2026-03-08', 'alpha', 3, 30, 270, 300, 1),"
                " ('2026-03-08', 'beta', 2, 20, 180, 200, 0)")
    finally:
        migrate(latest())
    rows = {row.client: row for row in DailyUsage.objects.filter(day=date(2026, 3, 8))}
    assert set(rows) == {None, "alpha", "beta"}
    assert (rows["alpha"].requests, rows["alpha"].tokens_saved, rows["alpha"].strategy_fallback) == (3, 270, 1)
    assert rows[None].requests == 5

    migrate(BEFORE)
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT client, requests, fallback FROM routing_dailyclientusage ORDER BY client")
            assert cursor.fetchall() == [("alpha", 3, 1), ("beta", 2, 0)]
            cursor.execute("SELECT count(*) FROM routing_dailyusage")
            assert cursor.fetchone() == (1,)
    finally:
        migrate(latest())
