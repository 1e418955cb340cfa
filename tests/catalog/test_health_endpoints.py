import pytest

from toolcatalog.models import EmbeddingStatus, Tool


def test_healthz_answers_while_the_process_serves(client) -> None:
    response = client.get("/healthz")
    assert response.status_code == 200 and response.json() == {"status": "ok"}


@pytest.mark.django_db
def test_readyz_checks_database_and_redis_and_counts_embeddings(client) -> None:
    Tool.objects.create(name="a", description="A")
    Tool.objects.create(name="b", description="B")
    Tool.objects.filter(name="b").update(embedding_status=EmbeddingStatus.FAILED)
    body = client.get("/readyz").json()
    assert body["ready"] is True
    assert body["checks"] == {"database": {"ok": True}, "redis": {"ok": True}}
    assert body["embeddings"]["pending"] == 1 and body["embeddings"]["failed"] == 1


@pytest.mark.django_db
def test_readyz_is_503_and_says_why_when_redis_is_unreachable(client, settings) -> None:
    from shared.redis_client import get_redis

    settings.REDIS_URL = "redis://127.0.0.1:1/0"
    get_redis.cache_clear()
    try:
        response = client.get("/readyz")
    finally:
        get_redis.cache_clear()
    assert response.status_code == 503
    assert response.json()["checks"]["redis"]["ok"] is False
    assert response.json()["checks"]["redis"]["error"]
