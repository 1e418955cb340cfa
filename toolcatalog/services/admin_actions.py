"""The admin's bulk actions: enable or disable, set the category, re-embed now; the catalog doctor's "link as related"."""
from __future__ import annotations

from django.db import models, transaction
from django.utils import timezone

from ..models import Category, EmbeddingStatus, Tool
from .embedding_schedule import enqueue_embedding, kind_of
from .saving import save_and_schedule


def set_enabled(queryset: models.QuerySet, enabled: bool) -> int:
    """Bulk enable/disable through save(), so embeddings and the catalog version follow; as a
    curator's edit, like the form's checkbox, so that a later import does not undo it."""
    changed = 0
    for obj in queryset.exclude(enabled=enabled):
        obj.enabled = enabled
        obj.curated_fields = sorted({*obj.curated_fields, "enabled"})
        save_and_schedule(obj, update_fields=["enabled", "curated_fields", "updated_at"])
        changed += 1
    return changed


def set_category(tools: models.QuerySet[Tool], category: Category | None) -> int:
    """Move tools into a category, as a curator's edit (later imports keep it); each moved tool
    is re-embedded, since its category is part of its text."""
    changed = 0
    for tool in tools.exclude(category=category) if category else tools.exclude(category__isnull=True):
        tool.category = category
        tool.curated_fields = sorted({*tool.curated_fields, "category"})
        save_and_schedule(tool, update_fields=["category", "curated_fields", "updated_at"])
        changed += 1
    return changed


def request_reembedding(queryset: models.QuerySet) -> int:
    """Re-embed the selected objects now, whatever their stored hash says."""
    ids = list(queryset.values_list("pk", flat=True))
    queryset.model.objects.filter(pk__in=ids).update(
        embedding_status=EmbeddingStatus.PENDING, embedding_text_hash="", embedding_requested_at=timezone.now()
    )
    transaction.on_commit(lambda: enqueue_embedding(kind_of(queryset.model()), ids))
    return len(ids)


def link_related(a: Tool, b: Tool) -> None:
    """Each tool becomes a related tool of the other (the m2m signal bumps the catalog version)."""
    if a.pk == b.pk:
        return
    a.related_tools.add(b)
    b.related_tools.add(a)
