"""Embedding work (runs in the Celery worker, or in-process for `manage.py reembed`)."""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
from django.db import connection
from django.utils import timezone

from engine import text_hash

from ..embeddings import get_provider
from ..models import Embedded, EmbeddingStatus
from .embedding_schedule import EMBEDDED_MODELS, embedded_rows, embedding_is_current, embedding_text
from .versions import Change, bump_catalog_version, changes_of


@dataclass
class EmbedReport:
    embedded: int = 0
    skipped: int = 0


def embed_objects(kind: str, ids: Iterable[int]) -> EmbedReport:
    """Embed the rows whose vector is missing or stale. Idempotent: a retried batch skips done rows."""
    model = EMBEDDED_MODELS[kind]
    provider = get_provider()
    objects = embedded_rows(kind, ids)
    report = EmbedReport()
    todo: list[tuple[Embedded, str]] = []
    for obj in objects:
        text = embedding_text(obj)
        if embedding_is_current(obj, text, provider.model_id):
            report.skipped += 1
        else:
            todo.append((obj, text))
    if not todo:
        return report
    vectors = provider.embed([text for _, text in todo])  # raises EmbeddingProviderError
    store_vectors(model, [obj.pk for obj, _ in todo], vectors, [text_hash(text) for _, text in todo],
                  provider.model_id)
    # Bumped after the rows commit, never while holding their locks: a curator's save
    # locks its row and then the version row, and the opposite order could deadlock.
    bump_catalog_version(routing_changes(obj for obj, _ in todo))
    report.embedded = len(todo)
    return report


def store_vectors(model: type[Embedded], ids: list[int], vectors: np.ndarray, text_hashes: list[str],
                  model_id: str) -> None:
    """Make the rows `ready` with their vectors, in one statement: an UPDATE per row cost
    10,000 imported tools 4.5 s of their embedding time (bench/bench_embedding.py)."""
    if not len(ids) == len(vectors) == len(text_hashes):
        # unnest() pads the shorter arrays with NULL: rows would be `ready` with no vector.
        raise ValueError(f"{len(vectors)} vectors and {len(text_hashes)} text hashes for {len(ids)} rows")
    vector_texts = ["[" + ",".join(map(str, vector.tolist())) + "]" for vector in vectors]
    with connection.cursor() as cursor:
        cursor.execute(
            f"""UPDATE {model._meta.db_table} AS target
                SET embedding = fresh.embedding, embedding_text_hash = fresh.text_hash, embedding_model = %s,
                    embedding_dimensions = %s, embedding_status = %s, embedding_error = '', embedded_at = %s
                FROM unnest(%s::bigint[], %s::vector[], %s::text[]) AS fresh(id, embedding, text_hash)
                WHERE target.{model._meta.pk.column} = fresh.id""",
            [model_id, vectors.shape[1], EmbeddingStatus.READY, timezone.now(), ids, vector_texts, text_hashes],
        )


def routing_changes(objects: Iterable[Embedded]) -> list[Change]:
    """What new vectors of `objects` change for routing (a query's vector is its tool's)."""
    return [change for obj in objects for change in changes_of(type(obj), obj) or ()]


def record_embedding_error(kind: str, ids: Iterable[int], error: str, *, final: bool) -> None:
    """Keep the last error visible; after the last retry the rows become `failed`. A retry that
    fails leaves the status alone: a `failed` row re-queued by beat stays `failed` (with its
    latest error) until an attempt succeeds, so the count of failed rows does not swing every
    minute; a `pending` row stays pending until its last retry."""
    ids = list(ids)
    rows = EMBEDDED_MODELS[kind]._default_manager.filter(pk__in=ids).exclude(embedding_status=EmbeddingStatus.READY)
    if not final:
        rows.update(embedding_error=error[:2000])
        return
    rows.update(embedding_status=EmbeddingStatus.FAILED, embedding_error=error[:2000])
    # A failed embedding changes what routing can use, as a ready one does.
    model = EMBEDDED_MODELS[kind]
    bump_catalog_version(routing_changes(model._default_manager.filter(pk__in=ids)))
