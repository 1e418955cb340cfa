"""Reads from the catalog."""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Literal

from django.db import connection
from django.db.models import Count, Q

from engine import NameMap, is_provider_name

from .models import CatalogVersion, Category, DeletedToolName, EmbeddingStatus, HypotheticalQuery, Tool, Toolset

_CATALOG_VERSION = f"SELECT version FROM {CatalogVersion._meta.db_table} WHERE id = 1"


def catalog_version() -> int:
    """Web processes compare it with their routing index's (routing/live_index.py). The SQL
    is written once here: the ORM spent ~0.25 ms building this one-row query each time
    (the read itself takes ~0.05 ms)."""
    with connection.cursor() as cursor:
        cursor.execute(_CATALOG_VERSION)
        row = cursor.fetchone()
    return row[0] if row else 0


def tool_name_map() -> NameMap:
    """The provider names (OpenAI, Anthropic) the catalog's tools have now, as exports and route answers give them."""
    return NameMap(Tool.objects.values_list("name", flat=True))


def provider_name_taken_by(name: str, tool_pk: int | None = None,
                           names: NameMap | None = None) -> tuple[str, str] | None:
    """The other tool that OpenAI and Anthropic, or Gemini, already call `name`, and who: `files__read_file`
    is how OpenAI and Anthropic see `files.read_file`, `_1password__get_item` how Gemini sees
    `1password.get_item`. A tool literally named `name` would take that spelling (a name they accept
    keeps itself), and every call an agent makes to it would reach the new tool instead.

    `tool_pk` is the tool being renamed (None for a new one): it may take the name it already has
    for them. A tool already named `name` is not reported: the unique name check says so. `names`
    is the catalog's map when the caller checks many names against one catalog (an import)."""
    if not is_provider_name(name):  # the new tool itself gets a mapped name and takes none
        return None
    names = names if names is not None else tool_name_map()
    for holder, who in ((names.get(name), "OpenAI and Anthropic see"), (names.get(name, None, "gemini"), "Gemini sees")):
        if holder is None or holder == name:
            continue
        if tool_pk is not None and Tool.objects.filter(pk=tool_pk, name=holder).exists():
            return None
        return holder, who
    return None


def provider_name_error(name: str, tool_pk: int | None = None, names: NameMap | None = None) -> str | None:
    """Why a tool may not be created as (or renamed to) `name`, or None; see provider_name_taken_by."""
    taken = provider_name_taken_by(name, tool_pk, names)
    if taken is None:
        return None
    holder, who = taken
    return (f"tool {name!r}: {name} is how {who} the tool {holder}; pick another name "
            f"(agents calling {holder} would reach this one instead).")


def ids_by_name(kind: Literal["tool", "category"], names: Iterable[str]) -> dict[str, int]:
    """Primary keys of the tools (or categories) with these names, for admin links; names that
    no row has are left out."""
    model = Tool if kind == "tool" else Category
    return dict(model.objects.filter(name__in=set(names)).values_list("name", "pk"))


@dataclass(frozen=True)
class ToolState:
    pk: int
    enabled: bool
    category: str | None
    category_id: int | None


def tool_states(names: Iterable[str]) -> dict[str, ToolState]:
    """Whether each named tool is enabled and where it sits, in one query; names no tool has are left out."""
    rows = Tool.objects.filter(name__in=set(names)).values_list("name", "pk", "enabled", "category__name", "category_id")
    return {name: ToolState(pk, enabled, category, category_id) for name, pk, enabled, category, category_id in rows}


def deleted_tool_names(names: Iterable[str]) -> set[str]:
    """Which of `names` a deleted tool had (a tool of that name may exist again)."""
    return set(DeletedToolName.objects.filter(name__in=set(names)).values_list("name", flat=True))


def embedding_counts() -> dict[str, dict[str, int]]:
    """Per kind of object, how many embeddings are pending, ready and failed."""
    counts = {}
    for kind, model in (("tools", Tool), ("categories", Category), ("hypothetical_queries", HypotheticalQuery)):
        row = model.objects.aggregate(
            pending=Count("pk", filter=Q(embedding_status=EmbeddingStatus.PENDING)),
            ready=Count("pk", filter=Q(embedding_status=EmbeddingStatus.READY)),
            failed=Count("pk", filter=Q(embedding_status=EmbeddingStatus.FAILED)),
        )
        counts[kind] = row
    return counts


def category_path(category: Category | None) -> list[str]:
    path = []
    seen = set()
    while category is not None and category.pk not in seen:
        seen.add(category.pk)
        path.append(category.name)
        category = category.parent
    return list(reversed(path))


def toolset_tool_names(toolset: Toolset, without_category: int = 0) -> set[str]:
    """The tools a toolset names or pins, plus every tool of its categories and their sub-categories
    (all but `without_category` and what it alone reaches: what is left once it is deleted)."""
    names = set(toolset.tools.values_list("name", flat=True)) | set(toolset.pinned_tools.values_list("name", flat=True))
    category_ids = _with_descendants(set(toolset.categories.values_list("pk", flat=True)), skip=without_category)
    names |= set(Tool.objects.filter(category_id__in=category_ids).values_list("name", flat=True))
    return names


def _with_descendants(category_ids: set[int], skip: int = 0) -> set[int]:
    """The categories and all their sub-categories, but not `skip` (nor below it, through it)."""
    found, frontier = set(category_ids) - {skip}, set(category_ids) - {skip}
    while frontier:
        frontier = set(Category.objects.filter(parent_id__in=frontier).exclude(pk=skip)
                       .values_list("pk", flat=True)) - found
        found |= frontier
    return found


@dataclass(frozen=True)
class CategoryDeletion:
    """What deleting a category does beyond the row itself (the admin's confirmation page says it)."""

    orphaned_children: list[str]  # its sub-categories, which become top-level categories
    uncategorised_tools: list[str]  # its own tools, which are left without a category
    toolsets_losing_tools: dict[str, int]  # toolset -> how many tools it reaches through this category only


def category_deletion(category: Category) -> CategoryDeletion:
    lost: dict[str, int] = {}
    for toolset in Toolset.objects.filter(categories=category):
        if gone := len(toolset_tool_names(toolset) - toolset_tool_names(toolset, without_category=category.pk)):
            lost[toolset.name] = gone
    return CategoryDeletion(
        orphaned_children=sorted(category.children.values_list("name", flat=True)),
        uncategorised_tools=sorted(category.tools.values_list("name", flat=True)),
        toolsets_losing_tools=lost,
    )


def catalog_document() -> dict[str, Any]:
    """The whole catalog as a toolcatalog/v1 document, parents before children."""
    categories = list(Category.objects.select_related("parent"))
    ordered: list[Category] = []
    placed: set[int] = set()
    while len(ordered) < len(categories):
        progress = False
        for category in categories:
            if category.pk not in placed and (category.parent_id is None or category.parent_id in placed):
                ordered.append(category)
                placed.add(category.pk)
                progress = True
        if not progress:  # a cycle slipped past validation: emit the rest rather than loop
            ordered.extend(c for c in categories if c.pk not in placed)
            break
    tools = Tool.objects.select_related("category").prefetch_related("hypothetical_queries", "related_tools")
    return {
        "format": "toolcatalog/v1",
        "categories": [
            {
                "name": c.name,
                "description": c.description,
                "keywords": list(c.keywords),
                "workflow_hint": c.workflow_hint,
                "parent": c.parent.name if c.parent else None,
                "enabled": c.enabled,
            }
            for c in ordered
        ],
        "tools": [tool_document(t) for t in tools],
    }


def tool_document(tool: Tool) -> dict[str, Any]:
    """One tool as its toolcatalog/v1 entry (approved hypothetical queries only)."""
    return {
        "name": tool.name,
        "description": tool.description,
        "category": tool.category.name if tool.category else None,
        "parameters": tool.parameters,
        "hypothetical_queries": [q.text for q in tool.hypothetical_queries.all() if q.approved],
        "usage_hint": tool.usage_hint,
        "related_tools": sorted(r.name for r in tool.related_tools.all()),
        "core": tool.core,
        "enabled": tool.enabled,
        "tags": list(tool.tags),
        "source": tool.source,
    }
