"""A throw-away database and Redis database for a benchmark: never the live ones.

    with throwaway_services("toolrouter_bench", redis_db="13"):
        ...  # Django is set up, migrated, and connected only to the bench database

Run benchmarks through `python -m toolrouter.devservices -- ...` so the servers are up.
"""
from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def live_urls() -> tuple[str, str]:
    """DATABASE_URL and REDIS_URL as the app would find them, without importing the settings
    (Django must import them only once our own URLs are in the environment)."""
    data_dir = Path(os.environ.get("TOOLROUTER_DATA_DIR", ROOT / ".data"))
    services = data_dir / "services.env"
    embedded = dict(line.split("=", 1) for line in services.read_text().splitlines() if "=" in line) \
        if services.exists() else {}
    database = os.environ.get("DATABASE_URL") or embedded.get("DATABASE_URL")
    redis_url = os.environ.get("REDIS_URL") or embedded.get("REDIS_URL")
    if not database or not redis_url:
        raise SystemExit("no DATABASE_URL / REDIS_URL: run through `python -m toolrouter.devservices -- ...`")
    return database, redis_url


def _admin(admin_url: str, statement: str) -> None:
    import psycopg

    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(statement)


@contextmanager
def throwaway_services(database: str, redis_db: str) -> Iterator[None]:
    live_database, live_redis = live_urls()
    live = urlsplit(live_database)
    if live.path.strip("/") == database:
        raise SystemExit(f"DATABASE_URL already names {database!r}; point it at the server's usual database")
    os.environ["DATABASE_URL"] = urlunsplit(live._replace(path=f"/{database}"))
    os.environ["REDIS_URL"] = live_redis.rsplit("/", 1)[0] + "/" + redis_db
    admin_url = urlunsplit(live._replace(path="/postgres"))
    _admin(admin_url, f"DROP DATABASE IF EXISTS {database} WITH (FORCE)")
    _admin(admin_url, f"CREATE DATABASE {database}")
    try:
        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "toolrouter.settings")
        import django

        django.setup()
        from django.conf import settings
        from django.core.management import call_command
        from django.db import connection, connections

        if connection.settings_dict["NAME"] != database or not settings.REDIS_URL.endswith("/" + redis_db):
            raise SystemExit(f"refusing to run: connected to {connection.settings_dict['NAME']!r}, not {database!r}")
        call_command("migrate", verbosity=0)
        yield
        from shared.redis_client import get_redis

        get_redis().flushdb()  # the bench's own Redis database
        connections.close_all()
    finally:
        _admin(admin_url, f"DROP DATABASE IF EXISTS {database} WITH (FORCE)")
