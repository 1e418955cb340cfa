import logging
import time

from celery import shared_task
from django.conf import settings

from . import services
from .embeddings import EmbeddingProviderError

logger = logging.getLogger(__name__)


@shared_task(bind=True, acks_late=True, reject_on_worker_lost=True, max_retries=None)
def embed_objects(self, kind: str, ids: list[int]) -> dict:
    """Embed a batch; on provider errors retry with exponential backoff, then mark failed."""
    started = time.perf_counter()
    try:
        report = services.embed_objects(kind, ids)
    except EmbeddingProviderError as exc:
        final = self.request.retries >= settings.EMBEDDING_MAX_RETRIES
        services.record_embedding_error(kind, ids, str(exc), final=final)
        if final:
            logger.error("embedding %d %s rows failed after %d attempts, marked failed: %s",
                         len(ids), kind, self.request.retries + 1, exc)
            return {"failed": len(ids), "error": str(exc)}
        countdown = settings.EMBEDDING_RETRY_BACKOFF_SECONDS * (2 ** self.request.retries)
        logger.warning("embedding %d %s rows failed (%s); retrying in %.0f s", len(ids), kind, exc, countdown)
        raise self.retry(exc=exc, countdown=countdown) from exc
    if report.embedded:
        logger.info("embedded %d %s rows in %.1f s%s", report.embedded, kind, time.perf_counter() - started,
                    f" ({report.skipped} already current)" if report.skipped else "")
    return {"embedded": report.embedded, "skipped": report.skipped}


@shared_task(acks_late=True)
def requeue_stale_embeddings() -> int:
    sent = services.requeue_stale_embeddings()
    if sent:
        logger.info("re-queued %d embeddings (pending too long, failed, or made by another model)", sent)
    return sent
