"""Background work of the filter gateway: embedding the tool texts a request had no budget for."""
from __future__ import annotations

from celery import shared_task

from toolcatalog.embeddings import get_provider


@shared_task(ignore_result=True)
def embed_tool_texts(texts: list[str], model_id: str) -> int:
    """Embed `texts` into the filter's vector cache (Redis), so the next request with them is ranked
    with vectors; returns how many were asked. Texts of another model than the configured one are
    left alone (the configuration changed since they were queued)."""
    from .filtering import tool_vector_cache

    provider = get_provider()
    if provider.model_id != model_id:
        return 0
    tool_vector_cache.vectors(texts, provider)
    return len(texts)
