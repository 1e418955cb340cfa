"""The embedded Redis of `make run` and `make test` answers commands as soon as `start()` returns,
keeps what it held across a restart, and compacts an append-only file that writes since deleted
have grown (Redis alone would replay all of it at every start)."""
import time
from pathlib import Path

import redis

from toolrouter import devservices
from toolrouter.devservices import EmbeddedRedis


def aof_bytes(data_dir: Path) -> int:
    return sum(f.stat().st_size for f in data_dir.rglob("*.aof*"))


def test_a_restarted_redis_is_loaded_keeps_its_data_and_compacts_its_file(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(devservices, "AOF_COMPACT_BYTES", 4 * 2**20)
    server = EmbeddedRedis(data_dir=tmp_path / "redis")
    client = redis.Redis.from_url(server.start())
    try:
        chunk = b"x" * 2**20
        for i in range(12):  # 12 MB written, then deleted: what a benchmark's flush leaves in the file
            client.set(f"scratch:{i}", chunk)
        client.delete(*[f"scratch:{i}" for i in range(12)])
        client.rpush("usage:requests", b"a logged request")
        client.close()
    finally:
        server.stop()
    grown = aof_bytes(tmp_path / "redis")
    assert grown > 12 * 2**20

    client = redis.Redis.from_url(server.start())
    try:
        assert client.lrange("usage:requests", 0, -1) == [b"a logged request"]  # no LOADING error, nothing lost
        for _ in range(100):
            if client.info("persistence")["aof_rewrite_in_progress"] == 0 and aof_bytes(tmp_path / "redis") < 2**20:
                break
            time.sleep(0.1)  # the rewrite runs in the background
        assert aof_bytes(tmp_path / "redis") < 2**20
        client.close()
    finally:
        server.stop()
