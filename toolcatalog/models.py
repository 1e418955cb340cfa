from __future__ import annotations

from django.conf import settings
from django.contrib.postgres.fields import ArrayField
from django.core.exceptions import ValidationError
from django.db import models
from pgvector.django import VectorField

from . import validation


def empty_parameters() -> dict:
    return {"type": "object", "properties": {}}


class EmbeddingStatus(models.TextChoices):
    PENDING = "pending", "Pending"
    READY = "ready", "Ready"
    FAILED = "failed", "Failed"


class Embedded(models.Model):
    """An embedding and what it was made from, so that stale vectors can be found.

    No vector index: nearest neighbours are found in each process's in-memory index (the
    engine), and the HNSW indexes the tables once carried cost an import of 10,000 tools 7 s
    of its embedding time for queries nobody ran (migration 0006)."""

    embedding = VectorField(dimensions=settings.EMBEDDING_DIMENSIONS, null=True, blank=True, editable=False)
    embedding_model = models.CharField(max_length=200, blank=True, editable=False)
    embedding_dimensions = models.PositiveIntegerField(null=True, blank=True, editable=False)
    embedding_text_hash = models.CharField(max_length=64, blank=True, editable=False)
    embedding_status = models.CharField(
        max_length=10, choices=EmbeddingStatus.choices, default=EmbeddingStatus.PENDING, db_index=True, editable=False
    )
    embedding_error = models.TextField(blank=True, editable=False)
    embedding_requested_at = models.DateTimeField(null=True, blank=True, editable=False)
    embedded_at = models.DateTimeField(null=True, blank=True, editable=False)

    class Meta:
        abstract = True


class Category(Embedded):
    name = models.CharField(max_length=128, unique=True)
    description = models.TextField(blank=True)
    keywords = ArrayField(models.CharField(max_length=100), default=list, blank=True)
    workflow_hint = models.TextField(blank=True, help_text="Markdown, returned with the tools of this category.")
    parent = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="children"
    )
    enabled = models.BooleanField(default=True)
    curated_fields = ArrayField(
        models.CharField(max_length=32), default=list, blank=True, editable=False,
        help_text="Fields a curator edited in the admin; a re-import keeps their values.",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name"]
        verbose_name_plural = "categories"

    def __str__(self) -> str:
        return self.name

    def clean(self) -> None:
        errors = {}
        if message := validation.name_error("category", self.name):
            errors["name"] = message
        for field in ("description", "workflow_hint"):
            if message := validation.text_error("category", self.name, field, getattr(self, field)):
                errors[field] = message
        if message := validation.unstorable_error("category", self.name, "keywords", self.keywords):
            errors["keywords"] = message
        if self.parent is not None and self.pk and self._parent_chain_contains_self():
            errors["parent"] = f"category {self.name!r}: parent {self.parent.name!r} would make a cycle."
        if errors:
            raise ValidationError(errors)

    def _parent_chain_contains_self(self) -> bool:
        seen = set()
        node = self.parent
        while node is not None and node.pk not in seen:
            if node.pk == self.pk:
                return True
            seen.add(node.pk)
            node = node.parent
        return False


class Tool(Embedded):
    name = models.CharField(max_length=128, unique=True)
    description = models.TextField()
    category = models.ForeignKey(Category, null=True, blank=True, on_delete=models.SET_NULL, related_name="tools")
    parameters = models.JSONField(default=empty_parameters, blank=True, help_text="A JSON Schema object.")
    usage_hint = models.TextField(blank=True, help_text="What the tool returns and what to call next.")
    related_tools = models.ManyToManyField("self", symmetrical=False, blank=True, related_name="related_from")
    core = models.BooleanField(default=False, help_text="Always offered, whatever the query.")
    enabled = models.BooleanField(default=True, db_index=True)
    tags = ArrayField(models.CharField(max_length=100), default=list, blank=True)
    source = models.CharField(max_length=200, blank=True, help_text="Where the definition came from.")
    curated_fields = ArrayField(
        models.CharField(max_length=32), default=list, blank=True, editable=False,
        help_text="Fields a curator edited in the admin; a re-import keeps their values.",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

    def clean(self) -> None:
        errors = {}
        if message := validation.name_error("tool", self.name):
            errors["name"] = message
        if message := validation.parameters_error(self.name, self.parameters):
            errors["parameters"] = message
        if not (self.description or "").strip():
            errors["description"] = f"tool {self.name!r}: description must not be empty."
        for field in ("description", "usage_hint"):
            if message := validation.text_error("tool", self.name, field, getattr(self, field)):
                errors[field] = message
        for field in ("parameters", "tags", "source"):
            if message := validation.unstorable_error("tool", self.name, field, getattr(self, field)):
                errors[field] = message
        if errors:
            raise ValidationError(errors)


class QuerySource(models.TextChoices):
    CURATED = "curated", "Curated"
    IMPORTED = "imported", "Imported"
    LEARNED = "learned", "Learned"
    TRAFFIC = "traffic", "Traffic"  # an accepted suggestion: a logged query that reached (or needed) the tool


class HypotheticalQuery(Embedded):
    """A request a user might make for which the tool is the answer."""

    tool = models.ForeignKey(Tool, on_delete=models.CASCADE, related_name="hypothetical_queries")
    text = models.CharField(max_length=500)
    source = models.CharField(max_length=10, choices=QuerySource.choices, default=QuerySource.CURATED)
    approved = models.BooleanField(default=True, help_text="Only approved queries take part in routing.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["tool__name", "id"]
        verbose_name_plural = "hypothetical queries"
        constraints = [models.UniqueConstraint(fields=["tool", "text"], name="unique_query_per_tool")]

    def __str__(self) -> str:
        return self.text

    def clean(self) -> None:
        if not (self.text or "").strip():
            raise ValidationError({"text": "hypothetical query: text must not be empty."})
        if message := validation.unstorable_error("hypothetical query", self.text[:60], "text", self.text):
            raise ValidationError({"text": message})


class Toolset(models.Model):
    """A named subset of the catalog for one agent or client."""

    name = models.CharField(max_length=128, unique=True)
    description = models.TextField(blank=True)
    tools = models.ManyToManyField(Tool, blank=True, related_name="toolsets")
    categories = models.ManyToManyField(
        Category, blank=True, related_name="toolsets", help_text="All tools of these categories and their sub-categories."
    )
    pinned_tools = models.ManyToManyField(
        Tool, blank=True, related_name="pinned_in_toolsets",
        help_text="Always sent to a caller of this toolset, whatever the query (never more than it may see).",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

    def clean(self) -> None:
        if message := validation.name_error("toolset", self.name):
            raise ValidationError({"name": message})


class DeletedToolName(models.Model):
    """The name of a deleted tool: the catalog keeps no other trace of it, and the doctor flags
    guidance that still names it (routing/doctor.py)."""

    name = models.CharField(max_length=128, unique=True)
    deleted_at = models.DateTimeField()

    def __str__(self) -> str:
        return self.name


class CatalogVersion(models.Model):
    """One row whose number grows with every catalog change; web processes compare it to rebuild."""

    version = models.BigIntegerField(default=0)
    changed_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"catalog version {self.version}"


class ChangeKind(models.TextChoices):
    TOOL = "tool", "Tool"  # the tool's row, its hypothetical queries or its related tools
    CATEGORY = "category", "Category"
    TOOLSET = "toolset", "Toolset"
    ALL = "all", "Anything"  # a bulk write that did not say what it changed


class CatalogChange(models.Model):
    """What one catalog version changed, written in the change's own transaction.

    Web processes patch their routing index with the rows named here instead of reloading
    the whole catalog (routing/selectors.py); a version without rows here (pruned, or older
    than this table) or with an `all` row makes them reload everything.
    """

    version = models.BigIntegerField(db_index=True)
    kind = models.CharField(max_length=10, choices=ChangeKind.choices)
    object_id = models.BigIntegerField(null=True, blank=True)

    def __str__(self) -> str:
        return f"v{self.version}: {self.kind} {self.object_id or ''}".strip()
