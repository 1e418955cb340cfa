"""The catalog version: every change bumps it, and web processes rebuild their routing index."""
from __future__ import annotations

from django.db.models import F
from django.utils import timezone

from shared.redis_client import CATALOG_STAMP, changing

from ..models import CatalogVersion


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
