"""Writes for API clients: keys."""
from __future__ import annotations

import hashlib
import secrets
from typing import Any

from django.utils import timezone

from .models import ApiKey, Scope

KEY_PREFIX = "tr_"


def hash_key(raw_key: str) -> str:
    return hashlib.sha256(raw_key.encode("utf-8")).hexdigest()


def create_api_key(name: str, scopes: list[str] | None = None, toolset=None, **settings: Any) -> tuple[ApiKey, str]:
    """Returns the stored key and the raw key, which is never stored and cannot be shown again.
    `settings`: the key's other fields (rate_per_minute, pinned_tools, filter paths, MCP options)."""
    raw_key = KEY_PREFIX + secrets.token_urlsafe(32)
    api_key = ApiKey(name=name, prefix=raw_key[:10], key_hash=hash_key(raw_key),
                     scopes=scopes or [Scope.ROUTE], toolset=toolset, **settings)
    api_key.full_clean()
    api_key.save()
    return api_key, raw_key


def touch_last_used(api_key: ApiKey, min_interval_seconds: int = 60) -> None:
    """Keep last-used time without a write on every request (at most one a minute per web process:
    `api_key` may be this process's copy, which does not see other processes' writes)."""
    now = timezone.now()
    if api_key.last_used_at is None or (now - api_key.last_used_at).total_seconds() > min_interval_seconds:
        ApiKey.objects.filter(pk=api_key.pk).touch(now)
        api_key.last_used_at = now


def revoke_api_key(api_key: ApiKey) -> None:
    ApiKey.objects.filter(pk=api_key.pk).update(revoked=True)


def rename_pinned_tool(old_name: str, new_name: str) -> int:
    """Keys that pin a renamed tool pin it under its new name (they pin by name); how many changed."""
    changed = 0
    for api_key in ApiKey.objects.filter(pinned_tools__contains=[old_name]):
        api_key.pinned_tools = [new_name if name == old_name else name for name in api_key.pinned_tools]
        api_key.save(update_fields=["pinned_tools"])
        changed += 1
    return changed


def name_before_rename(api_key: ApiKey) -> str | None:
    """The stored name of a key that is about to be saved under another one; None when the save keeps it."""
    stored = ApiKey.objects.filter(pk=api_key.pk).values_list("name", flat=True).first()
    return stored if stored is not None and stored != api_key.name else None
