"""Importing a catalog: a document in any supported format in, a report of what changed out.

The one service behind the three doors (API, `manage.py import_catalog`, the admin's page).
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models, transaction

from engine import NameMap
from shared.db_locks import hold_transaction_lock

from .. import selectors, validation
from ..interchange import (
    ANTHROPIC,
    BEDROCK,
    GEMINI,
    MCP,
    OPENAI,
    OPENAPI,
    DocumentLimits,
    InterchangeError,
    LimitExceeded,
    parse_catalog,
)
from ..models import Category, ChangeKind, HypotheticalQuery, QuerySource, Tool, empty_parameters
from .embedding_schedule import forget_queued_embeddings
from .saving import save_validated
from .versions import bump_catalog_version


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


def _split_curated(obj: models.Model, changed: list[str]) -> tuple[list[str], list[str]]:
    """(fields to write, curator-edited fields to keep) among the fields an import would change."""
    curated = set(getattr(obj, "curated_fields", None) or ())
    return [f for f in changed if f not in curated], [f for f in changed if f in curated]


class CatalogImportError(Exception):
    """The document as a whole is not a catalog; nothing was imported."""


class ImportLimitError(CatalogImportError):
    """The document needs more work than a limit allows; nothing was imported.

    `setting` names the limit (e.g. IMPORT_MAX_REF_EXPANSIONS); `is_size` marks the limits on
    the document's size once expanded (a 413 for API callers; nesting depth is a 400)."""

    def __init__(self, exc: LimitExceeded) -> None:
        self.setting = "IMPORT_" + exc.limit.upper()
        self.allowed = exc.allowed
        self.is_size = exc.is_size
        super().__init__(f"{exc} (limit {self.setting} = {exc.allowed})")


class ImportAbandoned(CatalogImportError):
    """The caller went away (its client closed the connection): the import stopped, nothing was stored."""


IMPORT_LOCK_KEY = 0x746F6F6C696D7074  # a PostgreSQL advisory lock of this service's own ("toolimpt")
StopCheck = Callable[[], bool]
STOP_CHECK_EVERY = 25  # tools between two looks at the client


def import_limits() -> DocumentLimits:
    """The limits every import door applies, from settings."""
    return DocumentLimits(max_depth=settings.IMPORT_MAX_DEPTH, max_nodes=settings.IMPORT_MAX_NODES,
                          max_yaml_aliases=settings.IMPORT_MAX_YAML_ALIASES,
                          max_ref_expansions=settings.IMPORT_MAX_REF_EXPANSIONS)


# What each format says of a tool; the rest of an existing tool stays as it is. A provider's
# tool list re-imported over the catalog (a refreshed list, the catalog's own OpenAI export) has
# no categories, hints, related tools or enabled flags: they are not "none" but not said. MCP's
# tags hold only its annotations, and `source` names the format a tool was first read from.
TOOL_FIELDS = frozenset({"description", "parameters", "category", "usage_hint", "related_tools", "core", "enabled",
                         "tags", "source"})
CARRIED_FIELDS: dict[str, frozenset[str]] = {
    OPENAI: frozenset({"description", "parameters"}),
    ANTHROPIC: frozenset({"description", "parameters"}),
    GEMINI: frozenset({"description", "parameters"}),
    BEDROCK: frozenset({"description", "parameters"}),
    MCP: frozenset({"description", "parameters", "category"}),
    OPENAPI: frozenset({"description", "parameters", "category", "usage_hint", "tags"}),
}


def import_catalog(document: dict[str, Any], *, dry_run: bool = False, source: str = "",
                   should_stop: StopCheck | None = None, fields: frozenset[str] = TOOL_FIELDS) -> ImportReport:
    """Create or update categories and tools from a toolcatalog/v1 document.

    Good entries are imported and bad ones reported, each with its reason. Curated
    hypothetical queries are kept; the document's queries are added as `imported`. An existing
    tool takes only `fields` from the document (a format that does not carry the others: see
    CARRIED_FIELDS); a new one takes every field.
    `should_stop` (e.g. "the client has gone") is asked every few tools: when it says so, the
    import raises ImportAbandoned and its transaction is rolled back.
    """
    if not isinstance(document, dict) or document.get("format") != "toolcatalog/v1":
        raise CatalogImportError("expected a JSON object with \"format\": \"toolcatalog/v1\".")
    categories = document.get("categories", [])
    tools = document.get("tools", [])
    if not isinstance(categories, list) or not isinstance(tools, list):
        raise CatalogImportError("\"categories\" and \"tools\" must be lists.")
    report = ImportReport(dry_run=dry_run)
    with transaction.atomic():
        _wait_for_other_imports()
        _import_categories(categories, report)
        imported = _import_tools(tools, report, source, fields, should_stop)
        _link_related_tools(tools, imported, report, fields)
        if dry_run:
            transaction.set_rollback(True)
            forget_queued_embeddings()
    return report


def _wait_for_other_imports() -> None:
    """One import at a time: two at once (a double click on Import, two API clients) both read a
    category or tool as new and the second one's insert failed on its unique name. Held until the
    transaction ends, so the second import reads what the first one wrote."""
    hold_transaction_lock(IMPORT_LOCK_KEY)


def import_any(data: Any, *, format: str | None = None, server_name: str | None = None, category: str | None = None,
               dry_run: bool = False, should_stop: StopCheck | None = None) -> dict[str, Any]:
    """Parse a document in any supported format and import it: the report every door shows.

    Provider-safe names of tools the catalog has (an OpenAI export's `files__read_file`) come
    back as the catalog's names (`files.read_file`), so re-importing an OpenAI, Anthropic, Gemini
    or Bedrock export updates the same tools; toolcatalog/v1 and MCP documents carry catalog names. The
    converter's rejections (entries it could not read) come first, then the service's (entries
    the catalog refused). `category` goes to every tool the document leaves without one (OpenAI,
    Anthropic, Gemini and Bedrock documents have no categories, nor have untagged OpenAPI operations). Raises
    CatalogImportError when the document as a whole is not what it claims to be or names a
    category that does not exist, ImportLimitError when it needs more work than the
    IMPORT_MAX_* limits allow; nothing is imported then.
    """
    names = NameMap(Tool.objects.values_list("name", flat=True))
    try:
        parsed = parse_catalog(data, format or None, server_name=server_name or None, name_map=names,
                               limits=import_limits())
        if should_stop and should_stop():
            raise ImportAbandoned("the client went away before the import started")
        document = parsed.to_document()
        fields = CARRIED_FIELDS.get(parsed.format, TOOL_FIELDS)
        if parsed.format == MCP and not parsed.categories:  # servers without a name file no tool anywhere
            fields -= {"category"}
        if category:
            _default_category(document, category)
            fields |= {"category"}
        report = import_catalog(document, dry_run=dry_run, source=parsed.format, should_stop=should_stop,
                                fields=fields)
    except LimitExceeded as exc:
        raise ImportLimitError(exc) from exc
    except InterchangeError as exc:
        raise CatalogImportError(str(exc)) from exc
    body = report.as_dict()
    body["format"] = parsed.format
    for rejection in body["rejected"]:  # the service counted the tools it was given, not the file's entries
        if rejection["kind"] == "tool" and rejection["name"] in parsed.entry_index:
            rejection["index"] = str(parsed.entry_index[rejection["name"]])
    body["rejected"] = [{"kind": r.kind, "index": str(r.index), "name": r.name, "reason": r.reason}
                        for r in parsed.rejected] + body["rejected"]
    body["counts"]["rejected"] = len(body["rejected"])
    body["warnings"] = list(parsed.warnings)
    return body


def _default_category(document: dict[str, Any], category: str) -> None:
    """Put the tools without a category into `category` (which must exist, here or in the document)."""
    in_document = {c.get("name") for c in document.get("categories", []) if isinstance(c, dict)}
    if category not in in_document and not Category.objects.filter(name=category).exists():
        raise CatalogImportError(f"category {category!r} does not exist; create it first or leave the category empty.")
    for tool in document.get("tools", []):
        if isinstance(tool, dict) and not tool.get("category"):
            tool["category"] = category


def _import_categories(entries: list[Any], report: ImportReport) -> None:
    names_in_document = {e.get("name") for e in entries if isinstance(e, dict)}
    known: set[Any] = set(Category.objects.values_list("name", flat=True)) | names_in_document
    parents: dict[str, str | None] = {}
    for position, entry in enumerate(entries):
        name: Any = entry.get("name") if isinstance(entry, dict) else None
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
                bump_catalog_version([(ChangeKind.CATEGORY.value, category.pk)])


def _category_problem(entry: Any, known: set[Any]) -> str | None:
    if not isinstance(entry, dict):
        return "a category must be a JSON object."
    name: Any = entry.get("name")
    if message := validation.name_error("category", name):
        return message
    if message := validation.keywords_error("category", name, entry.get("keywords", [])):
        return message
    if message := _unstorable_field("category", name, entry):
        return message
    parent = entry.get("parent")
    if parent is not None and parent not in known:
        return f"category {name!r}: parent {parent!r} does not exist."
    if parent == name:
        return f"category {name!r}: a category cannot be its own parent."
    return None


def _unstorable_field(kind: str, name: str, entry: dict[str, Any]) -> str | None:
    for key, value in entry.items():
        if message := validation.unstorable_error(kind, name, key, value):
            return message
    return None


def _parent_name(category: Category) -> str | None:
    return category.parent.name if category.parent is not None else None


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


def _import_tools(entries: list[Any], report: ImportReport, source: str, fields: frozenset[str],
                  should_stop: StopCheck | None = None) -> dict[str, Tool]:
    categories = {c.name: c for c in Category.objects.all()}
    # The provider names the catalog's tools had before this import: the ones agents may be calling.
    names = selectors.tool_name_map()
    imported: dict[str, Tool] = {}
    seen: set[str] = set()
    for position, entry in enumerate(entries):
        if should_stop and position % STOP_CHECK_EVERY == 0 and position and should_stop():
            raise ImportAbandoned(f"the client went away after {position} of {len(entries)} tools; nothing was stored")
        name: Any = entry.get("name") if isinstance(entry, dict) else None
        problem = _tool_problem(entry, categories, seen, names)
        if problem:
            report.rejected.append({"kind": "tool", "index": str(position), "name": str(name), "reason": problem})
            continue
        seen.add(name)
        try:
            with transaction.atomic():
                tool, created, changed = _upsert_tool(entry, categories, source, fields, report)
                changed |= _add_queries(tool, entry.get("hypothetical_queries") or [])
        except ValidationError as exc:
            report.rejected.append({"kind": "tool", "index": str(position), "name": str(name), "reason": _messages(exc)})
            continue
        imported[name] = tool
        _record(report, name, created, changed)
    return imported


def _tool_problem(entry: Any, categories: dict[str, Category], seen: set[str], names: NameMap) -> str | None:
    if not isinstance(entry, dict):
        return "a tool must be a JSON object."
    name: Any = entry.get("name")
    if message := validation.name_error("tool", name):
        return message
    if name in seen:
        return f"tool {name!r}: the name appears twice in the document."
    if message := selectors.provider_name_error(name, names=names):
        return message
    if message := _unstorable_field("tool", name, entry):
        return message
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


def _upsert_tool(entry: dict[str, Any], categories: dict[str, Category], source: str, fields: frozenset[str],
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
        "source": entry["source"] if isinstance(entry.get("source"), str) else source,
    }
    category = categories.get(str(entry["category"])) if entry.get("category") else None
    tool = Tool.objects.filter(name=entry["name"]).first()
    if tool is None:
        return save_validated(Tool(name=entry["name"], category=category, **values)), True, False
    changed = [k for k, v in values.items() if k in fields and getattr(tool, k) != v]
    if "category" in fields and tool.category_id != (category.pk if category else None):
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


def _link_related_tools(entries: list[Any], imported: dict[str, Tool], report: ImportReport,
                        fields: frozenset[str]) -> None:
    if "related_tools" not in fields:
        return
    all_names = set(Tool.objects.values_list("name", flat=True))
    for entry in entries:
        tool = imported.get(str(entry.get("name"))) if isinstance(entry, dict) else None
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
