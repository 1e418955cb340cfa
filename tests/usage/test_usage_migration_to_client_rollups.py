"""Databases from before per-client rollups keep each client's daily totals as that client's rows,
and the days whose raw rows remain are rolled up again with every client's detail."""
from datetime import date

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from usage import services as usage
from usage.models import DailyToolUsage, DailyUsage

from .records import at

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = [("usage", "0004_learning_from_traffic")]


def migrate(targets: list[tuple[str, str]]) -> None:
    MigrationExecutor(connection).migrate(targets)


def latest() -> list[tuple[str, str]]:
    return [node for node in MigrationExecutor(connection).loader.graph.leaf_nodes() if node[0] == "usage"]


DAILY_USAGE_COLUMNS = (
    "day, requests, route_requests, tool_search_requests, filter_requests, proxy_requests, latency_sum_ms,"
    " latency_histogram, tokens_selected, tokens_catalog, tokens_saved, strategy_fast, strategy_semantic,"
    " strategy_hybrid, strategy_hierarchical, strategy_fallback, strategy_other, low_confidence, no_results,"
    " feedback, feedback_success, feedback_failure, tools_used, tools_offered_and_used, tools_missed, rolled_up_at")


def old_rollup_row(day: str, requests: int) -> str:
    """A DailyUsage row as the rollup job of 0004 wrote it (no client column)."""
    return (f"INSERT INTO routing_dailyusage ({DAILY_USAGE_COLUMNS}) VALUES ('{day}', {requests}, {requests}, 0, 0,"
            f" 0, 50, '{{}}', 0, 500, 450, {requests}, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, now())")


def test_client_totals_become_client_rows_and_go_back() -> None:
    migrate(BEFORE)
    try:
        with connection.cursor() as cursor:  # as the rollup job of 0004 wrote them
            cursor.execute(old_rollup_row("2026-03-08", 5))
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


def test_days_whose_raw_rows_remain_are_rolled_up_again_per_client(settings) -> None:
    settings.USAGE_RETENTION_DAYS = 2  # on March 10th, raw rows before March 8th are gone
    migrate(BEFORE)
    try:
        with connection.cursor() as cursor:
            cursor.execute(old_rollup_row("2026-03-07", 4))  # past retention: kept as it is
            cursor.execute(old_rollup_row("2026-03-09", 1))
            cursor.execute(
                "INSERT INTO routing_requestlog (created_at, request_id, client, endpoint, query_hash, strategy,"
                " strategy_class, fallback, categories, results, latency_ms, tokens_selected, tokens_catalog,"
                " tokens_saved) VALUES ('2026-03-09 10:00+00', 'kept', 'alpha', 'route', '', 'bm25', 'fast', false,"
                " '{}', '[{\"name\": \"play_music\", \"rank\": 1, \"score\": 0.9}]', 1.5, 0, 0, 0)")
    finally:
        migrate(latest())
    assert list(DailyUsage.objects.values_list("day", "client")) == [(date(2026, 3, 7), None)]
    usage.prune_and_roll_up(at("2026-03-10 12:00"))
    assert DailyUsage.objects.get(day=date(2026, 3, 7), client=None).requests == 4
    assert DailyUsage.objects.get(day=date(2026, 3, 9), client="alpha").requests == 1
    assert DailyToolUsage.objects.get(day=date(2026, 3, 9), client="alpha", tool="play_music").offered == 1
