"""Writes to the catalog: saving, importing, and keeping embeddings and the version current."""
from __future__ import annotations

import logging
import threading
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any, Iterable

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models, transaction
from django.db.models import F
from django.utils import timezone

from engine import category_embedding_text, text_hash, tool_embedding_text
from shared.redis_client import CATALOG_STAMP, changing

from . import validation
from .embeddings import get_provider
from .models import Category, CatalogVersion, EmbeddingStatus, HypotheticalQuery, QuerySource, Tool, empty_parameters

logger = logging.getLogger(__name__)

EMBEDDED_MODELS: dict[str, type[models.Model]] = {
    "tool": Tool,
    "category": Category,
    "query": HypotheticalQuery,
}


def kind_of(obj: models.Model) -> str:
    for kind, model in EMBEDDED_MODELS.items():
        if isinstance(obj, model):
            return kind
    raise TypeError(f"{type(obj).__name__} has no embedding")


# --- catalog version --------------------------------------------------------------------------

def bump_catalog_version() -> None:
    """Tell every web process that its routing index is stale.

    The bump is part of the change's own transaction: readers see the new version
    exactly when they can see the change, never before and never without it. Around
    it, the catalog stamp in Redis is replaced (before, and again once committed), so
    processes that skip the version read while the stamp holds read it on their next
    request (routing/live_index.py).
    """
    with changing(CATALOG_STAMP):
        updated = CatalogVersion.objects.filter(pk=1).update(version=F("version") + 1, changed_at=timezone.now())
        if not updated:
            CatalogVersion.objects.get_or_create(pk=1, defaults={"version": 1})


# --- embedding scheduling ---------------------------------------------------------------------

def embedding_text(obj: models.Model) -> str:
    if isinstance(obj, Tool):
        category = obj.category.name if obj.category_id else None
        return tool_embedding_text(obj.name, obj.description, category, obj.parameters)
    if isinstance(obj, Category):
        # The engine adds the category's tools' vectors at query time, so a new tool
        # does not make the category's own vector stale.
        return category_embedding_text(obj.name, obj.description, obj.keywords)
    if isinstance(obj, HypotheticalQuery):
        return obj.text
    raise TypeError(f"{type(obj).__name__} has no embedding")


def embedding_is_current(obj: models.Model, text: str, model_id: str) -> bool:
    return (
        obj.embedding_status == EmbeddingStatus.READY
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


def schedule_embedding(obj: models.Model) -> bool:
    """Queue `obj` for embedding unless its vector already matches its text and model."""
    text = embedding_text(obj)
    if embedding_is_current(obj, text, get_provider().model_id):
        return False
    kind = kind_of(obj)
    type(obj).objects.filter(pk=obj.pk).update(
        embedding_status=EmbeddingStatus.PENDING, embedding_requested_at=timezone.now()
    )
    _queue.ids[kind].add(obj.pk)
    transaction.on_commit(_flush_embedding_queue)
    return True


def _flush_embedding_queue() -> None:
    pending, _queue.ids = _queue.ids, defaultdict(set)
    for kind, ids in pending.items():
        enqueue_embedding(kind, sorted(ids))


def enqueue_embedding(kind: str, ids: list[int]) -> None:
    """Send embedding tasks; a broker outage leaves the rows pending for the beat task to retry."""
    from .tasks import embed_objects

    batch = settings.EMBEDDING_BATCH_SIZE
    for start in range(0, len(ids), batch):
        try:
            embed_objects.delay(kind, ids[start:start + batch])
        except Exception:  # noqa: BLE001 - the save already succeeded; the beat task requeues
            logger.warning("could not enqueue %s embeddings; they stay pending", kind, exc_info=True)
            return


# --- embedding work (runs in the Celery worker) ----------------------------------------------

@dataclass
class EmbedReport:
    embedded: int = 0
    skipped: int = 0


def embed_objects(kind: str, ids: Iterable[int]) -> EmbedReport:
    """Embed the rows whose vector is missing or stale. Idempotent: a retried batch skips done rows."""
    model = EMBEDDED_MODELS[kind]
    provider = get_provider()
    objects = list(model.objects.filter(pk__in=list(ids)))
    if kind == "tool":
        objects = list(model.objects.filter(pk__in=[o.pk for o in objects]).select_related("category"))
    report = EmbedReport()
    todo: list[tuple[models.Model, str]] = []
    for obj in objects:
        text = embedding_text(obj)
        if embedding_is_current(obj, text, provider.model_id):
            report.skipped += 1
        else:
            todo.append((obj, text))
    if not todo:
        return report
    vectors = provider.embed([text for _, text in todo])  # raises EmbeddingProviderError
    now = timezone.now()
    with transaction.atomic():
        for (obj, text), vector in zip(todo, vectors):
            model.objects.filter(pk=obj.pk).update(
                embedding=vector.tolist(),
                embedding_model=provider.model_id,
                embedding_dimensions=len(vector),
                embedding_text_hash=text_hash(text),
                embedding_status=EmbeddingStatus.READY,
                embedding_error="",
                embedded_at=now,
            )
    # Bumped after the rows commit, never while holding their locks: a curator's save
    # locks its row and then the version row, and the opposite order could deadlock.
    bump_catalog_version()
    report.embedded = len(todo)
    return report


def record_embedding_error(kind: str, ids: Iterable[int], error: str, *, final: bool) -> None:
    """Keep the last error visible; after the last retry the rows become `failed`."""
    status = EmbeddingStatus.FAILED if final else EmbeddingStatus.PENDING
    EMBEDDED_MODELS[kind].objects.filter(pk__in=list(ids)).exclude(embedding_status=EmbeddingStatus.READY).update(
        embedding_status=status, embedding_error=error[:2000]
    )
    if final:
        # A failed embedding changes what routing can use, as a ready one does.
        bump_catalog_version()


def requeue_stale_embeddings(pending_after: timedelta = timedelta(minutes=2)) -> int:
    """Re-send work for rows that are failed, pending for too long, or made by another model."""
    cutoff = timezone.now() - pending_after
    sent = 0
    for kind, model in EMBEDDED_MODELS.items():
        stale = model.objects.filter(
            models.Q(embedding_status=EmbeddingStatus.FAILED)
            | models.Q(embedding_status=EmbeddingStatus.PENDING, embedding_requested_at__lt=cutoff)
            | models.Q(embedding_status=EmbeddingStatus.PENDING, embedding_requested_at__isnull=True)
        )
        ids = sorted(set(stale.values_list("pk", flat=True)) | set(stale_model_ids(model)))
        if ids:
            model.objects.filter(pk__in=ids).update(embedding_requested_at=timezone.now())
            enqueue_embedding(kind, ids)
            sent += len(ids)
    return sent


def stale_model_ids(model: type[models.Model]) -> models.QuerySet:
    """Ready rows whose vector was made by another model than the configured one."""
    return (model.objects.filter(embedding_status=EmbeddingStatus.READY)
            .exclude(embedding_model=get_provider().model_id).values_list("pk", flat=True))


def mark_all_for_reembedding() -> int:
    """Forget every stored text hash so that the next embedding pass redoes everything."""
    count = 0
    for model in EMBEDDED_MODELS.values():
        count += model.objects.update(embedding_status=EmbeddingStatus.PENDING, embedding_text_hash="")
    return count


# --- saving -----------------------------------------------------------------------------------

def save_validated(obj: models.Model) -> models.Model:
    """full_clean then save: the one way a service writes a catalog object."""
    obj.full_clean()
    obj.save()
    return obj


# --- toolcatalog/v1 import and export ---------------------------------------------------------

TOOL_FIELDS = ("description", "parameters", "usage_hint", "core", "enabled", "tags", "source")

# What a curator may edit in the admin and a re-import then leaves alone. `parameters`,
# `name` and `source` are the definition's contract with its origin and always follow it.
CURATABLE_TOOL_FIELDS = ("description", "category", "usage_hint", "core", "enabled", "tags")
CURATABLE_CATEGORY_FIELDS = ("description", "keywords", "workflow_hint", "parent", "enabled")


@dataclass
class ImportReport:
    created: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    rejected: list[dict[str, str]] = field(default_factory=list)
    # Curator-edited fields the document would have changed, left as the curator set them.
    kept: list[dict[str, Any]] = field(default_factory=list)
    dry_run: bool = False

    def as_dict(self) -> dict[str, Any]:
        return {
            "dry_run": self.dry_run,
            "counts": {
                "created": len(self.created),
                "updated": len(self.updated),
                "unchanged": len(self.unchanged),
                "rejected": len(self.rejected),
                "kept": len(self.kept),
            },
            "created": self.created,
            "updated": self.updated,
            "unchanged": self.unchanged,
            "rejected": self.rejected,
            "kept": self.kept,
        }

    def keep(self, kind: str, name: str, fields: list[str]) -> None:
        if fields:
            self.kept.append({"kind": kind, "name": name, "fields": sorted(fields),
                              "reason": "edited in the admin; the import leaves it as the curator set it."})


def mark_curated_edits(obj: Tool | Category, fields: Iterable[str]) -> None:
    """Before an admin save: remember which of `fields` the curator set, so re-imports keep them.

    Compares values with the stored row (not the form's changed_data, which flags array fields
    that were only re-rendered); on creation, every non-empty field counts as curated.
    """
    stored = type(obj).objects.filter(pk=obj.pk).first() if obj.pk else None
    edited = set()
    for name in fields:
        attname = obj._meta.get_field(name).attname  # category -> category_id, parent -> parent_id
        value = getattr(obj, attname)
        if (stored is None and value not in (None, "", [])) or (stored is not None and getattr(stored, attname) != value):
            edited.add(name)
    obj.curated_fields = sorted(set(obj.curated_fields or ()) | edited)


def _split_curated(obj: models.Model, changed: list[str]) -> tuple[list[str], list[str]]:
    """(fields to write, curator-edited fields to keep) among the fields an import would change."""
    curated = set(getattr(obj, "curated_fields", None) or ())
    return [f for f in changed if f not in curated], [f for f in changed if f in curated]


class CatalogImportError(Exception):
    """The document as a whole is not a catalog; nothing was imported."""


def import_catalog(document: dict[str, Any], *, dry_run: bool = False, source: str = "") -> ImportReport:
    """Create or update categories and tools from a toolcatalog/v1 document.

    Good entries are imported and bad ones reported, each with its reason. Curated
    hypothetical queries are kept; the document's queries are added as `imported`.
    """
    if not isinstance(document, dict) or document.get("format") != "toolcatalog/v1":
        raise CatalogImportError("expected a JSON object with \"format\": \"toolcatalog/v1\".")
    categories = document.get("categories", [])
    tools = document.get("tools", [])
    if not isinstance(categories, list) or not isinstance(tools, list):
        raise CatalogImportError("\"categories\" and \"tools\" must be lists.")
    report = ImportReport(dry_run=dry_run)
    with transaction.atomic():
        _import_categories(categories, report)
        imported = _import_tools(tools, report, source)
        _link_related_tools(tools, imported, report)
        if dry_run:
            transaction.set_rollback(True)
            _queue.ids.clear()
    return report


def import_any(data: Any, format: str | None = None, *, server_name: str | None = None,
               dry_run: bool = False) -> dict[str, Any]:
    """Parse a document in any supported format and import it: the report every door shows.

    The converter's rejections (entries it could not read) come first, then the
    service's (entries the catalog refused). Raises CatalogImportError when the
    document as a whole is not what it claims to be; nothing is imported then.
    """
    from .interchange import InterchangeError, parse_catalog

    try:
        parsed = parse_catalog(data, format or None, server_name=server_name or None)
        report = import_catalog(parsed.to_document(), dry_run=dry_run, source=parsed.format)
    except InterchangeError as exc:
        raise CatalogImportError(str(exc)) from exc
    body = report.as_dict()
    body["format"] = parsed.format
    body["rejected"] = [{"kind": r.kind, "index": str(r.index), "name": r.name, "reason": r.reason}
                        for r in parsed.rejected] + body["rejected"]
    body["counts"]["rejected"] = len(body["rejected"])
    body["warnings"] = list(parsed.warnings)
    return body


def _import_categories(entries: list[Any], report: ImportReport) -> None:
    names_in_document = {e.get("name") for e in entries if isinstance(e, dict)}
    known = set(Category.objects.values_list("name", flat=True)) | names_in_document
    parents: dict[str, str | None] = {}
    for position, entry in enumerate(entries):
        name = entry.get("name") if isinstance(entry, dict) else None
        problem = _category_problem(entry, known)
        if problem:
            report.rejected.append({"kind": "category", "index": str(position), "name": str(name), "reason": problem})
            continue
        category, created, changed = _upsert_category(entry, report)
        if created or "parent" not in category.curated_fields:
            parents[category.name] = entry.get("parent")
        elif _parent_name(category) != entry.get("parent"):
            report.keep("category", category.name, ["parent"])
        _record(report, f"category:{category.name}", created, changed)
    for name, parent in parents.items():
        category = Category.objects.get(name=name)
        parent_obj = Category.objects.filter(name=parent).first() if parent else None
        if category.parent_id != (parent_obj.pk if parent_obj else None):
            category.parent = parent_obj
            try:
                save_validated(category)
            except ValidationError as exc:
                report.rejected.append({"kind": "category", "name": name, "reason": _messages(exc)})
                Category.objects.filter(pk=category.pk).update(parent=None)


def _category_problem(entry: Any, known: set[str]) -> str | None:
    if not isinstance(entry, dict):
        return "a category must be a JSON object."
    name = entry.get("name")
    if message := validation.name_error("category", name):
        return message
    if message := validation.keywords_error("category", name, entry.get("keywords", [])):
        return message
    parent = entry.get("parent")
    if parent is not None and parent not in known:
        return f"category {name!r}: parent {parent!r} does not exist."
    if parent == name:
        return f"category {name!r}: a category cannot be its own parent."
    return None


def _parent_name(category: Category) -> str | None:
    return category.parent.name if category.parent_id else None


def _upsert_category(entry: dict[str, Any], report: ImportReport) -> tuple[Category, bool, bool]:
    values = {
        "description": entry.get("description") or "",
        "keywords": list(entry.get("keywords") or []),
        "workflow_hint": entry.get("workflow_hint") or "",
        "enabled": bool(entry.get("enabled", True)),
    }
    category = Category.objects.filter(name=entry["name"]).first()
    if category is None:
        return save_validated(Category(name=entry["name"], **values)), True, False
    changed, kept = _split_curated(category, [k for k, v in values.items() if getattr(category, k) != v])
    report.keep("category", category.name, kept)
    for key in changed:
        setattr(category, key, values[key])
    if changed:
        save_validated(category)
    return category, False, bool(changed)


def _import_tools(entries: list[Any], report: ImportReport, source: str) -> dict[str, Tool]:
    categories = {c.name: c for c in Category.objects.all()}
    imported: dict[str, Tool] = {}
    seen: set[str] = set()
    for position, entry in enumerate(entries):
        name = entry.get("name") if isinstance(entry, dict) else None
        problem = _tool_problem(entry, categories, seen)
        if problem:
            report.rejected.append({"kind": "tool", "index": str(position), "name": str(name), "reason": problem})
            continue
        seen.add(name)
        try:
            with transaction.atomic():
                tool, created, changed = _upsert_tool(entry, categories, source, report)
                changed |= _add_queries(tool, entry.get("hypothetical_queries") or [])
        except ValidationError as exc:
            report.rejected.append({"kind": "tool", "index": str(position), "name": str(name), "reason": _messages(exc)})
            continue
        imported[name] = tool
        _record(report, name, created, changed)
    return imported


def _tool_problem(entry: Any, categories: dict[str, Category], seen: set[str]) -> str | None:
    if not isinstance(entry, dict):
        return "a tool must be a JSON object."
    name = entry.get("name")
    if message := validation.name_error("tool", name):
        return message
    if name in seen:
        return f"tool {name!r}: the name appears twice in the document."
    if not isinstance(entry.get("description"), str) or not entry["description"].strip():
        return f"tool {name!r}: description must be a non-empty string."
    if message := validation.parameters_error(name, entry.get("parameters", empty_parameters())):
        return message
    category = entry.get("category")
    if category is not None and category not in categories:
        return f"tool {name!r}: category {category!r} does not exist."
    queries = entry.get("hypothetical_queries", [])
    if not isinstance(queries, list) or not all(isinstance(q, str) and q.strip() for q in queries):
        return f"tool {name!r}: hypothetical_queries must be a list of non-empty strings."
    related = entry.get("related_tools", [])
    if not isinstance(related, list) or not all(isinstance(r, str) for r in related):
        return f"tool {name!r}: related_tools must be a list of tool names."
    return None


def _upsert_tool(entry: dict[str, Any], categories: dict[str, Category], source: str,
                 report: ImportReport) -> tuple[Tool, bool, bool]:
    """Create the tool, or write the fields that differ; unchanged rows are not saved at all,
    so their embedding (hash, vector, embedded_at) and updated_at stay as they were."""
    values = {
        "description": entry["description"],
        "parameters": entry.get("parameters") or empty_parameters(),
        "usage_hint": entry.get("usage_hint") or "",
        "core": bool(entry.get("core", False)),
        "enabled": bool(entry.get("enabled", True)),
        "tags": list(entry.get("tags") or []),
        "source": entry.get("source") or source,
    }
    category = categories.get(entry.get("category")) if entry.get("category") else None
    tool = Tool.objects.filter(name=entry["name"]).first()
    if tool is None:
        return save_validated(Tool(name=entry["name"], category=category, **values)), True, False
    changed = [k for k, v in values.items() if getattr(tool, k) != v]
    if tool.category_id != (category.pk if category else None):
        changed.append("category")
    changed, kept = _split_curated(tool, changed)
    report.keep("tool", tool.name, kept)
    for key in changed:
        setattr(tool, key, category if key == "category" else values[key])
    if changed:
        save_validated(tool)
    return tool, False, bool(changed)


def _add_queries(tool: Tool, texts: list[str]) -> bool:
    existing = set(tool.hypothetical_queries.values_list("text", flat=True))
    added = False
    for text in dict.fromkeys(t.strip() for t in texts):
        if text not in existing:
            save_validated(HypotheticalQuery(tool=tool, text=text, source=QuerySource.IMPORTED))
            added = True
    return added


def _link_related_tools(entries: list[Any], imported: dict[str, Tool], report: ImportReport) -> None:
    all_names = set(Tool.objects.values_list("name", flat=True))
    for entry in entries:
        tool = imported.get(entry.get("name")) if isinstance(entry, dict) else None
        if tool is None:
            continue
        wanted = list(dict.fromkeys(entry.get("related_tools") or []))
        missing = [n for n in wanted if n not in all_names]
        if missing:
            report.rejected.append({
                "kind": "related_tools", "name": tool.name,
                "reason": f"tool {tool.name!r}: related_tools {missing} do not exist; they were left out.",
            })
        wanted = [n for n in wanted if n in all_names and n != tool.name]
        current = set(tool.related_tools.values_list("name", flat=True))
        if current != set(wanted):
            tool.related_tools.set(Tool.objects.filter(name__in=wanted))
            if tool.name in report.unchanged:
                report.unchanged.remove(tool.name)
                report.updated.append(tool.name)


def _record(report: ImportReport, name: str, created: bool, changed: bool) -> None:
    if created:
        report.created.append(name)
    elif changed:
        report.updated.append(name)
    else:
        report.unchanged.append(name)


def _messages(exc: ValidationError) -> str:
    if hasattr(exc, "message_dict"):
        return " ".join(m for messages in exc.message_dict.values() for m in messages)
    return " ".join(exc.messages)


def set_enabled(queryset: models.QuerySet, enabled: bool) -> int:
    """Bulk enable/disable through save(), so embeddings and the catalog version follow."""
    changed = 0
    for obj in queryset.exclude(enabled=enabled):
        obj.enabled = enabled
        obj.save(update_fields=["enabled", "updated_at"])
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
