"""Private servers for the fault tests, so stopping one never disturbs another test run."""
from __future__ import annotations

import subprocess
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from shared.redis_client import get_redis
from toolrouter.devservices import EmbeddedRedis, free_port, wait_for_port


@dataclass
class PrivateRedis:
    """A real redis-server (the same binary as EmbeddedRedis) that can come back on the same port."""

    data_dir: Path
    db: str = "0"
    port: int = field(default_factory=free_port)
    process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/{self.db}"

    def start(self) -> None:
        self.data_dir.mkdir(parents=True, exist_ok=True)
        # Append-only, as EmbeddedRedis and docker-compose run it: what was buffered survives a restart.
        self.process = subprocess.Popen(
            [EmbeddedRedis.binary(), "--bind", "127.0.0.1", "--port", str(self.port), "--dir", str(self.data_dir),
             "--save", "", "--appendonly", "yes", "--protected-mode", "no"],
            stdout=open(self.data_dir / "server.log", "ab"), stderr=subprocess.STDOUT, start_new_session=True,
        )
        wait_for_port(self.port)

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=15)
        self.process = None


@pytest.fixture
def private_redis(tmp_path, settings) -> Iterator[PrivateRedis]:
    """This process's REDIS_URL pointed at a Redis of the test's own."""
    # The test Redis database number, which web processes started by the test also pick (settings.TESTING).
    server = PrivateRedis(tmp_path / "redis", db=settings.REDIS_URL.rsplit("/", 1)[1])
    server.start()
    settings.REDIS_URL = server.url
    get_redis.cache_clear()
    try:
        yield server
    finally:
        server.stop()
        get_redis.cache_clear()


@pytest.fixture(autouse=True)
def forget_redis_failures() -> Iterator[None]:
    """A Redis failure seen by an earlier test must not make throttling skip Redis in this one."""
    from api.throttling import reset_redis_state

    reset_redis_state()
    yield
    reset_redis_state()
