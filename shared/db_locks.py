"""PostgreSQL advisory locks: one writer of a kind at a time, across processes."""
from __future__ import annotations

from django.db import connection


def hold_transaction_lock(key: int) -> None:
    """Wait for, then hold until the current transaction ends, the advisory lock `key`."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(%s)", [key])
