"""Saving catalog objects: the one way a service writes a tool, category or hypothetical query.

A save validates, writes, and schedules the object's embedding (the signals only bump the
catalog version). Every door ends here: the API, imports, the admin, the usage dashboard.
"""
from __future__ import annotations

from collections.abc import Iterable
from typing import TypeVar

from django.db import models
from django.utils import timezone

from ..models import Category, DeletedToolName, HypotheticalQuery, Tool
from ..tool_mentions import replace_mentions
from .embedding_schedule import schedule_embedding

Saved = TypeVar("Saved", bound=models.Model)

# What a curator may edit in the admin and a re-import then leaves alone. `parameters`,
# `name` and `source` are the definition's contract with its origin and always follow it.
CURATABLE_TOOL_FIELDS = ("description", "category", "usage_hint", "core", "enabled", "tags")
CURATABLE_CATEGORY_FIELDS = ("description", "keywords", "workflow_hint", "parent", "enabled")


def save_validated(obj: Saved) -> Saved:
    """full_clean, save, and schedule the embedding: the one way a service writes a catalog object."""
    obj.full_clean()
    return save_and_schedule(obj)


def save_and_schedule(obj: Saved, update_fields: Iterable[str] | None = None) -> Saved:
    """Save an object already validated (the admin's forms validate) and schedule its embedding."""
    obj.save(update_fields=update_fields)
    if isinstance(obj, (Tool, Category, HypotheticalQuery)):
        schedule_embedding(obj)
    return obj


def mark_curated_edits(obj: Tool | Category, fields: Iterable[str]) -> None:
    """Before an admin save: remember which of `fields` the curator set, so re-imports keep them.

    Compares values with the stored row (not the form's changed_data, which flags array fields
    that were only re-rendered); on creation, every non-empty field counts as curated.
    """
    stored = type(obj)._default_manager.filter(pk=obj.pk).first() if obj.pk else None
    edited = set()
    for name in fields:
        field = obj._meta.get_field(name)
        assert isinstance(field, models.Field)
        attname = field.attname  # category -> category_id, parent -> parent_id
        value = getattr(obj, attname)
        if (stored is None and value not in (None, "", [])) or (stored is not None and getattr(stored, attname) != value):
            edited.add(name)
    obj.curated_fields = sorted(set(obj.curated_fields or ()) | edited)


def rename_in_hints(old_name: str, new_name: str) -> int:
    """A renamed tool's old name, wherever a usage hint or workflow hint names it, becomes its new
    one: guidance that says "use search_google" after a rename sends the agent to no tool. Only
    the whole name is replaced (not `files.read_file` for `read_file`: see tool_mentions, which the
    catalog doctor reads hints with too); how many hints changed."""
    changed = 0
    for model, field in ((Tool, "usage_hint"), (Category, "workflow_hint")):
        for obj in model._default_manager.filter(**{f"{field}__contains": old_name}):
            text = getattr(obj, field)
            rewritten = replace_mentions(text, old_name, new_name)
            if rewritten != text:
                setattr(obj, field, rewritten)
                save_and_schedule(obj, update_fields=[field, "updated_at"])
                changed += 1
    return changed


def remember_deleted_tool(name: str) -> None:
    """Keep a deleted tool's name (the doctor flags hints that still name it)."""
    DeletedToolName.objects.bulk_create([DeletedToolName(name=name, deleted_at=timezone.now())],  # one query
                                        update_conflicts=True, unique_fields=["name"], update_fields=["deleted_at"])
