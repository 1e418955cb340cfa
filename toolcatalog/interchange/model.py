"""The toolcatalog/v1 shape every importer produces, with its defaults.

Importers only gather raw fields; :func:`build_tool` and
:func:`build_category` turn them into complete v1 entries (or raise
:class:`EntryError` with a reason), so every format is validated the same way.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from engine import CATALOG_NAME_MAX, CATALOG_NAME_RULE, NameMap, hashed_name, is_catalog_name, sanitize_name

from .errors import Rejection
from .schemas import bfcl_to_json_schema, meta_schema_error

FORMAT_V1 = "toolcatalog/v1"


def default_parameters() -> dict[str, Any]:
    """A fresh empty-object schema (a new dict each time: callers mutate)."""
    return {"type": "object", "properties": {}}


class EntryError(ValueError):
    """One entry is malformed; the message becomes a Rejection reason."""


@dataclass
class ParsedCatalog:
    """Result of an import: complete v1 entries plus what was skipped.

    ``format`` is the detected or requested source format; ``warnings`` are
    things a person may want to know that did not stop an entry importing
    (renamed tools, unresolvable $refs, ...); ``renamed`` maps each tool name
    that had to change to the name the source gave it.
    """

    categories: list[dict[str, Any]] = field(default_factory=list)
    tools: list[dict[str, Any]] = field(default_factory=list)
    rejected: list[Rejection] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    renamed: dict[str, str] = field(default_factory=dict)
    entry_index: dict[str, int] = field(default_factory=dict)  # tool name -> its entry's position in the file
    format: str = ""

    def to_document(self) -> dict[str, Any]:
        """The catalog as a toolcatalog/v1 document."""
        return {
            "format": FORMAT_V1,
            "categories": copy.deepcopy(self.categories),
            "tools": copy.deepcopy(self.tools),
        }


def clean_name(raw: Any, what: str = "name") -> str:
    """Return a valid catalog name made from ``raw`` or raise EntryError."""
    if raw is None or raw == "":
        raise EntryError(f"missing {what}")
    if not isinstance(raw, str):
        raise EntryError(f"{what} must be a string, found {type(raw).__name__}")
    name = sanitize_name(raw)
    if not name or set(name) <= {"_", ".", "-"}:
        raise EntryError(f"{what} {raw!r} has no ASCII letters or digits (allowed: A-Z a-z 0-9 _ . -)")
    if len(name) > CATALOG_NAME_MAX:
        raise EntryError(f"{what} is {len(name)} characters long; at most {CATALOG_NAME_MAX} allowed")
    if not is_catalog_name(name):  # pragma: no cover - sanitize_name guarantees this
        raise EntryError(f"{what} {raw!r} cannot be made valid")
    return name


def check_parameters(schema: Any) -> dict[str, Any]:
    """Validate a tool's parameter schema; return it (``type`` filled in).

    LLM providers require an object schema, so a schema without ``type`` gets
    ``"object"`` and any other type is refused.  The schema is checked against
    its own ``$schema`` dialect (JSON Schema 2020-12 when none is named).
    """
    if schema is None:
        return default_parameters()
    if not isinstance(schema, dict):
        raise EntryError(f"parameters must be a JSON object (a JSON Schema), found {_kind(schema)}")
    schema = copy.deepcopy(schema)
    if not isinstance(schema.get("$schema", ""), str):  # jsonschema fails on it with an AttributeError
        raise EntryError(f"parameters' $schema must be a URI string, found {_kind(schema['$schema'])}")
    kind = schema.setdefault("type", "object")
    if kind != "object":
        raise EntryError(f"parameters must be a schema of type 'object', found type {kind!r}")
    error = meta_schema_error(schema)
    if error is not None:
        where = "/".join(str(p) for p in error.absolute_path) or "(top level)"
        raise EntryError(f"parameters is not a valid JSON Schema at {where}: {error.message}")
    return schema


def _kind(value: Any) -> str:
    names = {dict: "an object", list: "a list", str: "a string", bool: "a boolean", type(None): "null"}
    return names.get(type(value), type(value).__name__)


def _string(raw: dict[str, Any], key: str, default: str = "") -> str:
    value = raw.get(key)
    if value is None:
        return default
    if not isinstance(value, str):
        raise EntryError(f"{key} must be a string, found {_kind(value)}")
    return value


def _string_list(raw: dict[str, Any], key: str) -> list[str]:
    value = raw.get(key)
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise EntryError(f"{key} must be a list of strings")
    return list(value)


def _bool(raw: dict[str, Any], key: str, default: bool) -> bool:
    value = raw.get(key)
    if value is None:
        return default
    if not isinstance(value, bool):
        raise EntryError(f"{key} must be true or false, found {_kind(value)}")
    return value


def _optional_string(raw: dict[str, Any], key: str) -> str | None:
    value = raw.get(key)
    if value is not None and not isinstance(value, str):
        raise EntryError(f"{key} must be a string or null, found {_kind(value)}")
    return value or None


def build_tool(raw: dict[str, Any], source: str) -> dict[str, Any]:
    """A complete v1 tool from ``raw`` v1-named fields, or EntryError.

    ``raw`` may miss every optional field; the SPEC defaults fill them.
    ``raw``'s own source is kept, even a blank one (a re-imported export of a tool added in the
    admin); ``source`` fills it only where ``raw`` has none.
    """
    return {
        "name": clean_name(raw.get("name")),
        "description": _string(raw, "description").strip(),
        "category": _optional_string(raw, "category"),
        "parameters": check_parameters(raw.get("parameters")),
        "hypothetical_queries": _string_list(raw, "hypothetical_queries"),
        "usage_hint": _string(raw, "usage_hint"),
        "related_tools": _string_list(raw, "related_tools"),
        "core": _bool(raw, "core", False),
        "enabled": _bool(raw, "enabled", True),
        "tags": _string_list(raw, "tags"),
        "source": _string(raw, "source", source),
    }


def build_category(raw: dict[str, Any]) -> dict[str, Any]:
    """A complete v1 category from ``raw``, or EntryError."""
    name = raw.get("name")
    if not isinstance(name, str) or not name.strip():
        raise EntryError("missing category name" if not name else "category name must be a string")
    return {
        "name": name.strip(),
        "description": _string(raw, "description").strip(),
        "keywords": _string_list(raw, "keywords"),
        "workflow_hint": _string(raw, "workflow_hint"),
        "parent": _optional_string(raw, "parent"),
        "enabled": _bool(raw, "enabled", True),
    }


class CatalogBuilder:
    """Collects tools and categories for one import, enforcing uniqueness.

    Every importer feeds raw entries here; rejections and warnings are
    recorded instead of raised so that one bad entry never sinks the file.

    ``for_ranking`` (``manage.py evaluate``) keeps a tool that the catalog
    could not store but the engine can still rank: see :meth:`_built_for_ranking`.
    """

    def __init__(self, source: str, name_map: NameMap | None = None, *, for_ranking: bool = False) -> None:
        self.source = source
        self.name_map = name_map
        self.for_ranking = for_ranking
        self.result = ParsedCatalog(format=source)
        self._tool_index: dict[str, int] = {}
        self._given_names: set[str] = set()  # as the file spells them
        self._categories: dict[str, dict[str, Any]] = {}
        self._derived_categories: dict[str, str] = {}  # label -> category name (derived_category)

    def warn(self, message: str) -> None:
        self.result.warnings.append(message)

    def reject(self, index: int, name: Any, reason: str, kind: str = "tool") -> None:
        label = name if isinstance(name, str) else ""
        self.result.rejected.append(Rejection(index, label, reason, kind))

    def add_entry(self, index: int, entry: Any,
                  extract: Callable[[dict[str, Any]], dict[str, Any]]) -> dict[str, Any] | None:
        """Add one source-format entry: ``extract`` maps it to v1 fields or raises EntryError."""
        if not isinstance(entry, dict):
            self.reject(index, None, f"entry must be an object, found {_kind(entry)}")
            return None
        try:
            raw = extract(entry)
        except EntryError as exc:
            self.reject(index, entry.get("name"), str(exc))
            return None
        return self.add_tool(index, raw)

    def add_tool(self, index: int, raw: dict[str, Any]) -> dict[str, Any] | None:
        """Build and add a tool; on failure record a Rejection and return None."""
        if self.name_map is not None and isinstance(raw.get("name"), str):
            # A name we once exported (e.g. "github__search") comes back as itself.
            raw = {**raw, "name": self.name_map.get(raw["name"], raw["name"], self.source)}
        try:
            tool = build_tool(raw, self.source)
        except EntryError as exc:
            repaired = self._built_for_ranking(raw) if self.for_ranking else None
            if repaired is None:
                self.reject(index, raw.get("name"), str(exc))
                return None
            tool = repaired
        given = raw["name"]  # a string: the tool was built
        if tool["name"] in self._tool_index:
            first = self._tool_index[tool["name"]]
            stand_in = hashed_name(given, tool["name"])
            # For ranking, two names the file keeps apart ("Send Message", "Send_Message") that
            # became one stay two; a name the file repeats is a duplicate either way.
            if not self.for_ranking or given in self._given_names or stand_in in self._tool_index:
                first_given = self.result.renamed.get(tool["name"])
                spelled = f", spelled {first_given!r} there" if first_given else ""
                self.reject(index, tool["name"], f"duplicate name (first used by entry #{first}{spelled})")
                return None
            self.warn(f"tool {given!r} ranked as {stand_in!r}: as {tool['name']!r} it would clash with entry #{first}")
            tool["name"] = stand_in
        if tool["name"] != given:
            if tool["name"] == sanitize_name(given):
                self.warn(f"tool {given!r} renamed to {tool['name']!r} (illegal characters)")
            self.result.renamed[tool["name"]] = given
        self._tool_index[tool["name"]] = index
        self.result.entry_index[tool["name"]] = index
        self._given_names.add(given)
        self.result.tools.append(tool)
        return tool

    def _built_for_ranking(self, raw: dict[str, Any]) -> dict[str, Any] | None:
        """The tool ``raw`` describes, with what the catalog refuses but ranking can do without
        set aside: a name the catalog cannot hold gets a hashed stand-in (the file's name is
        kept in ``renamed``), and an invalid parameter schema or an optional field of the wrong
        type takes its default. A benchmark's tool lost to its spelling (seal-dev has
        "requestFirst Aid Assistance"; BFCL's raw schemas say "type": "dict") would otherwise
        count as a miss that no ranking caused. None when it has no name to rank it under."""
        name = raw.get("name")
        if not isinstance(name, str) or not name.strip():
            return None
        fixed = dict(raw)
        try:
            clean_name(name)
        except EntryError as exc:
            readable = sanitize_name(name)
            fixed["name"] = hashed_name(name, readable if any(c.isalnum() for c in readable) else "tool")
            self.warn(f"tool {name!r} ranked as {fixed['name']!r}: {exc}")
        try:
            check_parameters(raw.get("parameters"))
        except EntryError as exc:
            fixed["parameters"] = self._bfcl_parameters(name, raw.get("parameters"), exc)
        for key in [k for k in raw if k not in ("name", "parameters")]:
            try:
                build_tool({"name": "field_check", key: raw[key]}, self.source)
            except EntryError as exc:
                fixed[key] = None
                self.warn(f"tool {name!r} ranked with the default {key}: {exc}")
        try:
            return build_tool(fixed, self.source)
        except EntryError:
            return None

    def _bfcl_parameters(self, name: str, parameters: Any, error: EntryError) -> dict[str, Any] | None:
        """``parameters`` read in BFCL's dialect where that makes them valid (their descriptions
        are ranking text), else None: the tool is ranked without them."""
        mapped = bfcl_to_json_schema(parameters)
        try:
            check_parameters(mapped)
        except EntryError:
            self.warn(f"tool {name!r} ranked without its parameters: {error}")
            return None
        self.warn(f"tool {name!r} ranked with its parameter types read as BFCL's (dict as object, float as number)")
        return dict(mapped)

    def add_category(self, index: int, raw: Any) -> None:
        """Add a category (later duplicates are rejected)."""
        if not isinstance(raw, dict):
            self.reject(index, None, f"category must be an object, found {_kind(raw)}", kind="category")
            return
        try:
            category = build_category(raw)
        except EntryError as exc:
            self.reject(index, raw.get("name"), str(exc), kind="category")
            return
        if category["name"] in self._categories:
            self.reject(index, category["name"], "duplicate category name", kind="category")
            return
        self._categories[category["name"]] = category
        self.result.categories.append(category)

    def derived_category(self, label: str, what: str) -> str:
        """The category named after `label` (an MCP server's name, an OpenAPI tag), made name-safe
        as the tool-name prefix is ("@acme/notes" -> "acme_notes"): the label is not a name the
        file gives a category, and refusing it would refuse every tool filed under it."""
        if label not in self._derived_categories:
            name = sanitize_name(label)
            if not is_catalog_name(name):
                name = hashed_name(label, name if any(c.isalnum() for c in name) else "category")
            if name != label:
                self.warn(f"{what} {label!r} is the category {name!r} (a category name holds {CATALOG_NAME_RULE})")
            self._derived_categories[label] = name
        return self._derived_categories[label]

    def ensure_category(self, name: str, description: str = "", workflow_hint: str = "") -> None:
        """Add a category unless one of that name exists."""
        if name not in self._categories:
            self.add_category(len(self._categories),
                              {"name": name, "description": description, "workflow_hint": workflow_hint})

    def finish(self) -> ParsedCatalog:
        """Add categories the tools use but nobody declared; check references."""
        for tool in self.result.tools:
            if tool["category"] and tool["category"] not in self._categories:
                self.warn(f"category {tool['category']!r} used by {tool['name']!r} was not declared; added")
                self.ensure_category(tool["category"])
        for tool in self.result.tools:
            for related in tool["related_tools"]:
                if related not in self._tool_index:
                    self.warn(f"tool {tool['name']!r} lists related tool {related!r}, which this document does "
                              "not define (the catalog must have it)")
        for category in self.result.categories:
            if category["parent"] and category["parent"] not in self._categories:
                self.warn(f"category {category['name']!r} has parent {category['parent']!r}, which this document "
                          "does not define (the catalog must have it)")
        return self.result
