"""Embedding scheduling: which rows need a (new) vector, and sending their work to the worker.

Called by the services that save (`saving.save_validated` and the admin's saves), never by
signals: a save marks its object `pending` and enqueues it when the transaction commits.
"""
from __future__ import annotations

import logging
import threading
from collections import defaultdict
from collections.abc import Iterable
from datetime import timedelta

from django.conf import settings
from django.db import models, transaction
from django.utils import timezone

from engine import category_embedding_text, text_hash, tool_embedding_text

from ..embeddings import get_provider
from ..models import Category, Embedded, EmbeddingStatus, HypotheticalQuery, Tool

logger = logging.getLogger(__name__)

EMBEDDED_MODELS: dict[str, type[Embedded]] = {
    "tool": Tool,
    "category": Category,
    "query": HypotheticalQuery,
}


def kind_of(obj: models.Model) -> str:
    for kind, model in EMBEDDED_MODELS.items():
        if isinstance(obj, model):
            return kind
    raise TypeError(f"{type(obj).__name__} has no embedding")


def embedding_text(obj: models.Model) -> str:
    if isinstance(obj, Tool):
        category = obj.category.name if obj.category is not None else None
        return tool_embedding_text(obj.name, obj.description, category, obj.parameters)
    if isinstance(obj, Category):
        # The engine adds the category's tools' vectors at query time, so a new tool
        # does not make the category's own vector stale.
        return category_embedding_text(obj.name, obj.description, obj.keywords)
    if isinstance(obj, HypotheticalQuery):
        return obj.text
    raise TypeError(f"{type(obj).__name__} has no embedding")


def embedded_rows(kind: str, ids: Iterable[int]) -> list[Embedded]:
    """The rows of `ids`, with what their embedding text reads (a tool's category)."""
    model = EMBEDDED_MODELS[kind]
    if model is Tool:
        return list(Tool.objects.filter(pk__in=list(ids)).select_related("category"))
    return list(model._default_manager.filter(pk__in=list(ids)))


def embedding_batches(kind: str, ids: Iterable[int]) -> list[list[int]]:
    """`ids` cut into batches of EMBEDDING_BATCH_SIZE, longest text first, so that a batch
    holds texts of near-equal length: torch pads each of its batches to the longest text, and
    ONNX Runtime runs texts of one length together, so a call of like lengths makes full runs.
    Batches of ids in creation order ran 10,000 imported tools at 115 texts/s instead of 175
    (bench/bench_embedding.py)."""
    ids = sorted(set(ids))
    size = settings.EMBEDDING_BATCH_SIZE
    if len(ids) > size:
        length = {obj.pk: len(embedding_text(obj)) for obj in embedded_rows(kind, ids)}
        ids.sort(key=lambda pk: -length.get(pk, 0))
    return [ids[start:start + size] for start in range(0, len(ids), size)]


def embedding_is_current(obj: Embedded, text: str, model_id: str) -> bool:
    return (
        obj.embedding_status == EmbeddingStatus.READY
        and obj.embedding is not None  # a `ready` row without a vector (left by a short provider answer) is not
        and obj.embedding_text_hash == text_hash(text)
        and obj.embedding_model == model_id
    )


class _EmbeddingQueue(threading.local):
    """Ids waiting for the current transaction to commit, so an import of 10,000 tools
    sends a few hundred batched tasks instead of 10,000 single ones. Every schedule
    registers a flush; the first flush after the commit drains, the others find nothing.
    Ids left by a rolled-back transaction go out with the next flush and are skipped
    by the task, which finds no such row."""

    def __init__(self) -> None:
        self.ids: dict[str, set[int]] = defaultdict(set)


_queue = _EmbeddingQueue()


def schedule_embedding(obj: Embedded) -> bool:
    """Queue `obj` for embedding unless its vector already matches its text and model."""
    text = embedding_text(obj)
    if embedding_is_current(obj, text, get_provider().model_id):
        return False
    kind = kind_of(obj)
    # The row, and the instance the caller goes on with (the API answers with it).
    obj.embedding_status, obj.embedding_requested_at = EmbeddingStatus.PENDING, timezone.now()
    type(obj)._default_manager.filter(pk=obj.pk).update(
        embedding_status=obj.embedding_status, embedding_requested_at=obj.embedding_requested_at
    )
    _queue.ids[kind].add(obj.pk)
    transaction.on_commit(_flush_embedding_queue)
    return True


def forget_queued_embeddings() -> None:
    """Drop the ids queued by a transaction that is rolled back on purpose (a dry-run import)."""
    _queue.ids.clear()


def _flush_embedding_queue() -> None:
    pending, _queue.ids = _queue.ids, defaultdict(set)
    for kind, ids in pending.items():
        enqueue_embedding(kind, ids)


def enqueue_embedding(kind: str, ids: Iterable[int]) -> None:
    """Send embedding tasks; a broker outage leaves the rows pending for the beat task to retry."""
    from ..tasks import embed_objects

    for batch in embedding_batches(kind, ids):
        try:
            embed_objects.delay(kind, batch)
        except Exception:  # noqa: BLE001 - the save already succeeded; the beat task requeues
            logger.warning("could not enqueue %s embeddings; they stay pending", kind, exc_info=True)
            return


def requeue_stale_embeddings(pending_after: timedelta = timedelta(minutes=2)) -> int:
    """Re-send work for rows that are failed, pending for too long, or made by another model."""
    cutoff = timezone.now() - pending_after
    sent = 0
    for kind, model in EMBEDDED_MODELS.items():
        stale = model._default_manager.filter(
            models.Q(embedding_status=EmbeddingStatus.FAILED)
            | models.Q(embedding_status=EmbeddingStatus.PENDING, embedding_requested_at__lt=cutoff)
            | models.Q(embedding_status=EmbeddingStatus.PENDING, embedding_requested_at__isnull=True)
        )
        ids = sorted(set(stale.values_list("pk", flat=True)) | set(stale_model_ids(model)))
        if ids:
            model._default_manager.filter(pk__in=ids).update(embedding_requested_at=timezone.now())
            enqueue_embedding(kind, ids)
            sent += len(ids)
    return sent


def stale_model_ids(model: type[Embedded]) -> models.QuerySet[Embedded, int]:
    """Ready rows whose vector was made by another model than the configured one, or that have
    no vector at all (left `ready` by a provider that answered fewer vectors than texts)."""
    return (model._default_manager.filter(embedding_status=EmbeddingStatus.READY)
            .filter(~models.Q(embedding_model=get_provider().model_id) | models.Q(embedding__isnull=True))
            .values_list("pk", flat=True))


def edited_since_embedding_ids(model: type[Embedded], chunk_size: int = 2000) -> list[int]:
    """Ready rows whose text no longer hashes to the text their vector was made from: edited by
    a plain `.save()` (a script, a shell), which schedules nothing. The text is built in Python,
    so the rows are read and hashed here, a chunk at a time: fine for `manage.py reembed`, too
    much for beat's pass over the whole catalog every minute or two."""
    rows: models.QuerySet[Embedded] = model._default_manager.all()
    if model is Tool:  # a tool's text names its category
        rows = Tool.objects.select_related("category").defer("category__embedding")
    rows = (rows.filter(embedding_status=EmbeddingStatus.READY).exclude(embedding_text_hash="")
            .defer("embedding").order_by("pk"))
    return [obj.pk for obj in rows.iterator(chunk_size=chunk_size)
            if obj.embedding_text_hash != text_hash(embedding_text(obj))]


def mark_all_for_reembedding() -> int:
    """Forget every stored text hash so that the next embedding pass redoes everything."""
    count = 0
    for model in EMBEDDED_MODELS.values():
        count += model._default_manager.update(embedding_status=EmbeddingStatus.PENDING, embedding_text_hash="")
    return count
