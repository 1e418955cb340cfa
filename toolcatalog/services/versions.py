"""The catalog version: every change bumps it, and web processes update their routing index.

Each bump also records what it changed (`CatalogChange`): a web process that knows the
previous version patches its index with those rows alone (routing/selectors.py,
routing/live_index.py). A bump that does not say what changed records `all`, and readers
reload the whole catalog, as they do for versions whose records were pruned.
"""
from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.db import connection, models, transaction

from shared.redis_client import CATALOG_STAMP, changing

from ..models import CatalogChange, CatalogVersion, Category, ChangeKind, HypotheticalQuery, Tool, Toolset

# A process more than this many versions behind reloads everything; older records go.
CHANGE_LOG_VERSIONS = 10_000
_PRUNE_EVERY = 1_000

Change = tuple[str, int | None]

_BUMP = (f"UPDATE {CatalogVersion._meta.db_table} SET version = version + 1, changed_at = now() "
         "WHERE id = 1 RETURNING version")


def bump_catalog_version(changes: Iterable[Change] | None = None) -> int:
    """Tell every web process that its routing index is stale; returns the new version.

    `changes`: (kind, id) pairs of what changed (see `ChangeKind`: a tool's id for its row,
    its hypothetical queries and its related tools); None when the caller cannot say, which
    makes readers reload everything.

    The bump is part of the change's own transaction: readers see the new version (and its
    records) exactly when they can see the change, never before and never without it. Around
    it, the catalog stamp in Redis is replaced (before, and again once committed), so
    processes that skip the version read while the stamp holds read it on their next
    request (routing/live_index.py).
    """
    records = sorted(set(changes)) if changes is not None else []
    if not records:
        records = [(ChangeKind.ALL.value, None)]
    with changing(CATALOG_STAMP), transaction.atomic(savepoint=False):
        with connection.cursor() as cursor:
            cursor.execute(_BUMP)
            row = cursor.fetchone()
        if row is None:
            CatalogVersion.objects.get_or_create(pk=1, defaults={"version": 1})
            version = CatalogVersion.objects.get(pk=1).version
        else:
            version = row[0]
        CatalogChange.objects.bulk_create(
            [CatalogChange(version=version, kind=kind, object_id=object_id) for kind, object_id in records])
        if version % _PRUNE_EVERY == 0:
            CatalogChange.objects.filter(version__lte=version - CHANGE_LOG_VERSIONS).delete()
    return version


def changes_of(sender: type[models.Model], instance: Any) -> list[Change] | None:
    """What a saved or deleted catalog object changes for routing (None: unknown)."""
    if sender is Tool:
        return [(ChangeKind.TOOL.value, instance.pk)]
    if sender is HypotheticalQuery:
        return [(ChangeKind.TOOL.value, instance.tool_id)]
    if sender is Category:
        return [(ChangeKind.CATEGORY.value, instance.pk)]
    if sender is Toolset:
        return [(ChangeKind.TOOLSET.value, instance.pk)]
    return None


def related_tools_changes(instance: Any, reverse: bool, pk_set: set[int] | None) -> list[Change] | None:
    """A change to `Tool.related_tools`: the tools whose related list changed (None: unknown).

    Forward (`tool.related_tools.add(...)`) changes `instance`'s list; reverse
    (`tool.related_from.add(...)`) changes the lists of the tools in `pk_set`, and a reverse
    clear does not say which lists it emptied.
    """
    if not reverse:
        return [(ChangeKind.TOOL.value, instance.pk)]
    if pk_set is None:
        return None
    return [(ChangeKind.TOOL.value, pk) for pk in pk_set]
