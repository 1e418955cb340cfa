from __future__ import annotations

from django.contrib.postgres.fields import ArrayField
from django.core.exceptions import ValidationError
from django.db import models

from shared.redis_client import API_KEYS_STAMP, changing


class Scope(models.TextChoices):
    ROUTE = "route", "route (route, tool-search, filter, feedback)"
    CATALOG = "catalog", "catalog (catalog management, import, export)"


def default_scopes() -> list[str]:
    return [Scope.ROUTE]


BOUND_CATALOG_RULE = ("A key bound to a toolset cannot have the 'catalog' scope: catalog access would show and "
                      "change tools outside its toolset (and the toolset itself). Use a separate key for the catalog.")


class ApiKeyQuerySet(models.QuerySet):
    """Web processes keep copies of keys (api/auth.py): every write here replaces their stamp."""

    def update(self, **kwargs) -> int:
        with changing(API_KEYS_STAMP):
            return super().update(**kwargs)

    def delete(self) -> tuple[int, dict[str, int]]:
        with changing(API_KEYS_STAMP):
            return super().delete()

    def touch(self, when) -> int:
        """Record a use. The only write that keeps copies valid: no request is judged by last_used_at."""
        return super().update(last_used_at=when)


class ApiKey(models.Model):
    """A client's key. Only a hash is stored; the key itself is shown once, at creation."""

    name = models.CharField(max_length=128, unique=True)
    prefix = models.CharField(max_length=16, db_index=True, editable=False, help_text="First characters, to recognise a key.")
    key_hash = models.CharField(max_length=64, unique=True, editable=False)
    scopes = ArrayField(models.CharField(max_length=16, choices=Scope.choices), default=default_scopes)
    toolset = models.ForeignKey(
        "toolcatalog.Toolset", null=True, blank=True, on_delete=models.PROTECT, related_name="api_keys",
        help_text="When set, this key never sees a tool outside the toolset (and cannot have the catalog scope).",
    )
    rate_per_minute = models.PositiveIntegerField(null=True, blank=True, help_text="Empty: the default rate from settings.")
    # Where the filter gateway and the proxy find the query and the tools in this client's
    # LLM requests (JSONPath); empty means the defaults, a request may still override them.
    filter_query_path = models.CharField(
        max_length=500, null=True, blank=True, help_text="JSONPath of the query; empty: $.messages[-1].content"
    )
    filter_tools_path = models.CharField(
        max_length=500, null=True, blank=True, help_text="JSONPath of the tools list; empty: $.tools"
    )
    # The MCP door (/mcp): what this client's tools/list shows besides tool_search.
    mcp_core_tools = models.BooleanField(
        default=False, help_text="MCP: list the catalog's core tools (within the toolset) beside tool_search."
    )
    mcp_namespaced_names = models.BooleanField(
        default=False, help_text="MCP: present tools as category.name (an imported MCP server's name is its category)."
    )
    # Names, not a relation: the key is copied whole into each web process (api/auth.py), so
    # its pinned tools come without a query. A name the catalog no longer has is ignored.
    pinned_tools = ArrayField(
        models.CharField(max_length=128), default=list, blank=True,
        help_text="Tool names always sent to this client, whatever the query (comma-separated).",
    )
    revoked = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True, editable=False)

    objects = ApiKeyQuerySet.as_manager()

    class Meta:
        ordering = ["name"]
        verbose_name = "API key"

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"

    def save(self, *args, **kwargs) -> None:
        with changing(API_KEYS_STAMP):
            super().save(*args, **kwargs)

    def delete(self, *args, **kwargs) -> tuple[int, dict[str, int]]:
        with changing(API_KEYS_STAMP):
            return super().delete(*args, **kwargs)

    def clean(self) -> None:
        if self.binds_catalog_scope:
            raise ValidationError({"scopes": BOUND_CATALOG_RULE})
        from toolcatalog.models import Tool

        # Only names this edit adds: one the key already pins may have been deleted since, and is
        # ignored when routing; refusing it would make every other edit of the key fail.
        stored = ApiKey.objects.filter(pk=self.pk).values_list("pinned_tools", flat=True).first() if self.pk else None
        added = set(self.pinned_tools) - set(stored or ())
        unknown = sorted(added - set(Tool.objects.filter(name__in=added).values_list("name", flat=True)))
        if unknown:
            raise ValidationError({"pinned_tools": f"No tool is named {', '.join(map(repr, unknown))}."})

    @property
    def binds_catalog_scope(self) -> bool:
        """True for a key that breaks the rule (bound to a toolset, with the catalog scope); only
        keys stored before the rule can. Its catalog scope counts as absent (has_scope)."""
        return self.toolset_id is not None and Scope.CATALOG in (self.scopes or [])

    def has_scope(self, scope: str) -> bool:
        if scope == Scope.CATALOG and self.toolset_id is not None:
            return False  # BOUND_CATALOG_RULE, for keys stored before it
        return scope in self.scopes
