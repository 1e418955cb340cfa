from celery import shared_task
from django.conf import settings

from . import services
from .embeddings import EmbeddingProviderError


@shared_task(bind=True, acks_late=True, reject_on_worker_lost=True, max_retries=None)
def embed_objects(self, kind: str, ids: list[int]) -> dict:
    """Embed a batch; on provider errors retry with exponential backoff, then mark failed."""
    try:
        report = services.embed_objects(kind, ids)
    except EmbeddingProviderError as exc:
        final = self.request.retries >= settings.EMBEDDING_MAX_RETRIES
        services.record_embedding_error(kind, ids, str(exc), final=final)
        if final:
            return {"failed": len(ids), "error": str(exc)}
        countdown = settings.EMBEDDING_RETRY_BACKOFF_SECONDS * (2 ** self.request.retries)
        raise self.retry(exc=exc, countdown=countdown) from exc
    return {"embedded": report.embedded, "skipped": report.skipped}


@shared_task(acks_late=True)
def requeue_stale_embeddings() -> int:
    return services.requeue_stale_embeddings()
