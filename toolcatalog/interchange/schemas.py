"""JSON Schema helpers: walking sub-schemas, expanding $refs, OpenAPI 3.0 fixes, and checking a
schema against its meta-schema and its refs against itself.

Tool parameter schemas must be self-contained (an LLM sees only the tool),
so every local ``$ref`` is expanded in place.  The walk only follows
keywords that hold schemas; values such as ``example`` or ``default`` are
data and are never mistaken for schemas.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Iterable, Iterator
from functools import cache
from typing import Any
from urllib.parse import unquote

import jsonschema
from jsonschema import validators
from jsonschema_specifications import REGISTRY as SPECIFICATIONS

from .limits import DocumentLimits, LimitExceeded, NodeBudget

Schema = dict[str, Any]
logger = logging.getLogger(__name__)

_SCHEMA_KEYWORDS = ("items", "additionalProperties", "not", "if", "then", "else", "contains",
                    "propertyNames", "unevaluatedProperties", "unevaluatedItems", "additionalItems")
_SCHEMA_LIST_KEYWORDS = ("allOf", "anyOf", "oneOf", "prefixItems")
_SCHEMA_MAP_KEYWORDS = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")
_MAX_DEPTH = 40


def map_subschemas(schema: Schema, fn: Callable[[Any], Any]) -> Schema:
    """A copy of ``schema`` with ``fn`` applied to each direct sub-schema (those ``subschemas``
    walks); lists and maps holding them are copied, never changed in place."""
    out = dict(schema)
    for path, sub in subschemas(schema):
        key = str(path[0])
        if len(path) == 1:
            out[key] = fn(sub)
            continue
        where = path[1]
        if out[key] is schema[key]:
            out[key] = list(out[key]) if isinstance(out[key], list) else dict(out[key])
        out[key][where] = fn(sub)
    return out


def _unescape(token: str) -> str:
    return unquote(token).replace("~1", "/").replace("~0", "~")


def _ref_name(ref: str) -> str:
    return ref.rsplit("/", 1)[-1] or ref


def meta_schema_error(schema: Schema) -> jsonschema.ValidationError | None:
    """The first way ``schema`` breaks its own ``$schema`` dialect (2020-12 when none is named),
    as ``check_schema`` finds it (formats too); None when it is valid JSON Schema."""
    validator_class = validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    meta_validator = _flat_2020_12_meta_validator() if validator_class is jsonschema.Draft202012Validator else None
    if meta_validator is None:
        meta_class = validators.validator_for(validator_class.META_SCHEMA, default=validator_class)
        meta_validator = meta_class(validator_class.META_SCHEMA, format_checker=meta_class.FORMAT_CHECKER)
    return next(meta_validator.iter_errors(schema), None)


_META_2020_12 = "https://json-schema.org/draft/2020-12/"
_ANNOTATIONS = {"$schema", "$id", "$vocabulary", "$dynamicAnchor", "title", "$comment"}


@cache
def _flat_2020_12_meta_validator() -> jsonschema.Draft202012Validator | None:
    """The flat validator below, or None (the published meta-schema is used, only slower) when
    an installed jsonschema's 2020-12 meta-schema no longer has the shape it relies on."""
    try:
        return _flatten_2020_12_meta_schema()
    except ValueError as exc:
        logger.warning("JSON Schema checks use the published 2020-12 meta-schema (slower): %s", exc)
        return None


def _flatten_2020_12_meta_schema() -> jsonschema.Draft202012Validator:
    """A validator of the 2020-12 meta-schema made one document: the meta-schemas of its seven
    vocabularies (an ``allOf`` of ``$ref``s) merged into it, and ``{"$dynamicRef": "#meta"}`` made
    ``{"$ref": "#"}``.

    It finds what the published meta-schema finds, in the same order: the vocabularies share no
    keyword or ``$defs`` name (checked here), and ``#meta`` always lands on the root meta-schema,
    where validation starts (a dynamic ref goes to the outermost ``$dynamicAnchor``). But with
    jsonschema it is ~8 times faster: the published one costs each sub-schema seven ``$ref``s and
    a ``$dynamicRef`` to resolve, ~200 µs, so a 1.7 MB schema of 16,000 properties took 3.5 s to
    check, and a tool's save checks it more than once.
    """
    root = jsonschema.Draft202012Validator.META_SCHEMA
    parts = [SPECIFICATIONS.contents(_META_2020_12 + part["$ref"]) for part in root["allOf"]] + [root]
    properties: Schema = {}
    definitions: Schema = {}
    for part in parts:
        if set(part) - _ANNOTATIONS - {"allOf", "type", "properties", "$defs"} or part["type"] != root["type"]:
            raise ValueError(f"the 2020-12 meta-schema {part.get('$id')} has keywords that cannot be merged")
        for merged, more in ((properties, part.get("properties", {})), (definitions, part.get("$defs", {}))):
            if set(merged) & set(more):
                raise ValueError(f"the 2020-12 vocabularies both define {sorted(set(merged) & set(more))}")
            merged.update({name: _static_refs(sub) for name, sub in more.items()})
    flat = {"$schema": root["$schema"], "$defs": definitions, "properties": properties, "type": root["type"]}
    return jsonschema.Draft202012Validator(flat, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)


def _static_refs(schema: Any) -> Any:
    """``schema`` (part of a 2020-12 vocabulary's meta-schema) with its refs pointing into the flat one."""
    if not isinstance(schema, dict):
        return schema
    out = map_subschemas(schema, _static_refs)
    dynamic_ref = out.pop("$dynamicRef", None)
    if dynamic_ref == "#meta":
        out["$ref"] = "#"
    elif dynamic_ref is not None:
        raise ValueError(f"a 2020-12 vocabulary has the $dynamicRef {dynamic_ref!r}")
    elif "$ref" in out:  # "#/$defs/schemaArray", or another vocabulary's: "meta/validation#/$defs/stringArray"
        fragment = out["$ref"].partition("#")[2]
        if not fragment.startswith("/$defs/"):
            raise ValueError(f"a 2020-12 vocabulary has the $ref {out['$ref']!r}")
        out["$ref"] = "#" + fragment
    return out


def resolve_pointer(document: Any, ref: str) -> Any:
    """The value the local JSON pointer ref (``#``, ``#/$defs/a``) points at in ``document``, read
    as JSON Schema validators read it (RFC 6901); KeyError if it points nowhere, or is no such ref
    (``#anchor``, ``http://...``)."""
    if not ref.startswith("#") or ref[1:2] not in ("", "/"):
        raise KeyError(ref)
    return _follow_tokens(document, ref[2:].split("/") if len(ref) > 1 else [], ref)


def _follow_tokens(document: Any, tokens: Iterable[str], ref: str) -> Any:
    """The value under ``document`` at the JSON pointer's (escaped) tokens; KeyError(ref) if none."""
    node: Any = document
    for token in tokens:
        token = _unescape(token)
        if isinstance(node, list) and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        elif isinstance(node, dict) and token in node:
            node = node[token]
        else:
            raise KeyError(ref)
    return node


def subschemas(schema: Schema) -> Iterator[tuple[tuple[str | int, ...], Any]]:
    """Each direct sub-schema of ``schema`` (any draft's keywords) with its path from ``schema``."""
    for key in (*_SCHEMA_KEYWORDS, "contentSchema"):
        value = schema.get(key)
        if isinstance(value, dict):
            yield (key,), value
        elif key == "items" and isinstance(value, list):  # draft 4-2019 tuple form
            yield from (((key, i), s) for i, s in enumerate(value) if isinstance(s, dict))
    for key in _SCHEMA_LIST_KEYWORDS:
        if isinstance(schema.get(key), list):
            yield from (((key, i), s) for i, s in enumerate(schema[key]) if isinstance(s, dict))
    for key in (*_SCHEMA_MAP_KEYWORDS, "dependencies"):  # draft 4-7 `dependencies`: a schema or a list of names
        if isinstance(schema.get(key), dict):
            yield from (((key, name), s) for name, s in schema[key].items() if isinstance(s, dict))


def unresolvable_ref(schema: Schema) -> tuple[tuple[str | int, ...], str] | None:
    """The first ``$ref`` in ``schema`` that does not resolve inside it, with its path (ending in
    ``$ref``) and why; None when every ref does.

    A tool's parameters are sent to a provider alone, so a ref must point inside them: a JSON
    pointer (``#/$defs/a``, ``#`` for recursion) or an ``$anchor`` they declare. A ref to another
    document (``http://...``, ``other.json``) is refused, as imports never fetch one either.
    Only keywords that hold schemas are walked: a ``$ref`` in an ``example`` is data.
    """
    found = _walk(schema)
    anchors = {name for _, sub in found for name in _anchors_of(sub)}
    for path, sub in found:
        ref = sub.get("$ref")
        if not isinstance(ref, str):
            continue
        where = (*path, "$ref")
        if not ref.startswith("#"):
            return where, (f"{ref} points outside this schema; a provider is sent the parameters alone, "
                           "so a $ref must point inside them (#/$defs/...).")
        if ref[1:2] not in ("", "/"):
            if unquote(ref[1:]) not in anchors:
                return where, f"{ref} points to nothing in this schema (no $anchor is named {unquote(ref[1:])!r})."
            continue
        try:
            target = resolve_pointer(schema, ref)
        except KeyError:
            return where, f"{ref} points to nothing in this schema."
        if not isinstance(target, (dict, bool)):
            return where, f"{ref} points to {_json_kind(target)}, not a schema."
    return None


def _walk(schema: Schema) -> list[tuple[tuple[str | int, ...], Schema]]:
    """Every schema object in ``schema`` with its path, each before its own sub-schemas."""
    found: list[tuple[tuple[str | int, ...], Schema]] = []
    stack: list[tuple[tuple[str | int, ...], Schema]] = [((), schema)]
    while stack:  # no recursion: the schema may nest as deep as its reader allowed
        path, node = stack.pop()
        found.append((path, node))
        stack += [((*path, *sub_path), sub) for sub_path, sub in reversed(list(subschemas(node)))]
    return found


def _anchors_of(schema: Schema) -> list[str]:
    names = [schema.get("$anchor"), schema.get("$dynamicAnchor")]
    if isinstance(schema.get("$id"), str) and schema["$id"].startswith("#"):  # draft 6-7's anchor
        names.append(schema["$id"][1:])
    return [name for name in names if isinstance(name, str)]


def _json_kind(value: Any) -> str:
    names = {list: "a list", str: "a string", bool: "a boolean", int: "a number", float: "a number"}
    return names.get(type(value), "null")


class RefResolver:
    """Resolves local ``#/...`` references against one document.

    Problems (external or missing refs, cycles) never raise: the offending
    ref becomes a placeholder object schema and a message is appended to
    ``warnings``, so one broken schema does not sink a whole spec.  Only a
    local ref is ever followed: ``http://...`` or ``file://...`` is never fetched.
    Work is counted: past ``limits.max_ref_expansions`` expansions, or
    ``limits.max_nodes`` schema objects made, LimitExceeded is raised.
    """

    def __init__(self, document: dict[str, Any], limits: DocumentLimits | None = None) -> None:
        self.document = document
        self.warnings: list[str] = []
        self.limits = limits or DocumentLimits()
        self.expansions = 0
        self.budget = NodeBudget(self.limits)

    def lookup(self, ref: str) -> Any:
        """The value a local JSON pointer ref points at; KeyError if none. Forgiving, unlike
        `resolve_pointer`: an import's ``#components/schemas/Pet`` (no slash after ``#``) and
        ``#/a//b`` are read as meant."""
        if not ref.startswith("#"):
            raise KeyError(ref)
        return _follow_tokens(self.document, filter(None, ref[1:].split("/")), ref)

    def deref(self, obj: Any) -> Any:
        """Follow a chain of refs on a non-schema object (parameter, requestBody, ...)."""
        seen: set[str] = set()
        while isinstance(obj, dict) and isinstance(obj.get("$ref"), str):
            ref = obj["$ref"]
            if ref in seen:
                self.warnings.append(f"reference cycle at {ref}")
                return {}
            seen.add(ref)
            try:
                obj = self.lookup(ref)
            except KeyError:
                self.warnings.append(f"cannot resolve reference {ref!r}")
                return {}
        return obj

    def expand(self, schema: Any, _stack: tuple[str, ...] = ()) -> Any:
        """A copy of ``schema`` with every ref expanded; cycles left as stubs."""
        if not isinstance(schema, dict):
            return schema
        self.budget.spend(len(schema))
        if len(_stack) > _MAX_DEPTH:
            return {"type": "object", "description": "Schema nested too deeply; not expanded."}
        ref = schema.get("$ref")
        if isinstance(ref, str):
            return self._expand_ref(schema, ref, _stack)
        return map_subschemas(schema, lambda sub: self.expand(sub, _stack))

    def _expand_ref(self, schema: Schema, ref: str, stack: tuple[str, ...]) -> Schema:
        self.expansions += 1
        if self.expansions > self.limits.max_ref_expansions:
            raise LimitExceeded("max_ref_expansions", self.limits.max_ref_expansions,
                                f"expanding the document's $refs takes more than "
                                f"{self.limits.max_ref_expansions:,} expansions")
        siblings = {k: v for k, v in schema.items() if k != "$ref"}
        if ref in stack:
            target: Schema = {"type": "object",
                              "description": f"Recursive reference to {_ref_name(ref)} (not expanded)."}
        else:
            try:
                found = self.lookup(ref)
            except KeyError:
                self.warnings.append(f"cannot resolve reference {ref!r}")
                found = {"type": "object", "description": f"Unresolved reference {ref}."}
            target = self.expand(found, stack + (ref,)) if isinstance(found, dict) else {}
        # OpenAPI 3.1 allows keywords next to $ref; they refine the target.
        expanded_siblings = self.expand(siblings, stack)
        return {**target, **expanded_siblings}


def openapi30_to_json_schema(schema: Any) -> Any:
    """Rewrite OpenAPI 3.0 schema dialect into JSON Schema 2020-12.

    ``nullable`` becomes a ``"null"`` type, boolean ``exclusiveMinimum`` /
    ``exclusiveMaximum`` become numeric bounds, ``example`` becomes
    ``examples``, and OpenAPI-only keywords (``xml``, ``discriminator``,
    ``externalDocs``) are dropped.  A type in capitals (``"STRING"``: Gemini's
    Schema, an OpenAPI 3.0 subset, spells them so) is read in lower case.
    Also safe on 3.1 schemas.
    """
    if not isinstance(schema, dict):
        return schema
    out = dict(schema)
    if isinstance(out.get("type"), str):
        out["type"] = out["type"].lower()
    for key in ("xml", "discriminator", "externalDocs"):
        out.pop(key, None)
    if out.pop("nullable", False) is True:
        _make_nullable(out)
    for bound, limit in (("exclusiveMinimum", "minimum"), ("exclusiveMaximum", "maximum")):
        if isinstance(out.get(bound), bool):
            if out.pop(bound) and limit in out:
                out[bound] = out.pop(limit)
    if "example" in out and "examples" not in out:
        out["examples"] = [out.pop("example")]
    return map_subschemas(out, openapi30_to_json_schema)


# Gemini's Schema declares these counts int64, which its REST (proto3) JSON writes as strings: "minItems": "1".
_GEMINI_COUNTS = ("minItems", "maxItems", "minLength", "maxLength", "minProperties", "maxProperties")
_DIGITS = re.compile(r"[0-9]+")


def gemini_to_json_schema(schema: Any) -> Any:
    """Rewrite Gemini's Schema (an OpenAPI 3.0 subset) into JSON Schema 2020-12: what
    :func:`openapi30_to_json_schema` does, plus Gemini's own spellings: counts as digit strings
    become numbers, ``TYPE_UNSPECIFIED`` is no type, and ``nullable`` beside an ``anyOf`` (no
    ``type`` to widen) adds ``{"type": "null"}`` to it."""
    return openapi30_to_json_schema(_gemini_spellings(schema))


def _gemini_spellings(schema: Any) -> Any:
    if not isinstance(schema, dict):
        return schema
    out = dict(schema)
    for key in _GEMINI_COUNTS:
        if isinstance(out.get(key), str) and _DIGITS.fullmatch(out[key]):
            out[key] = int(out[key])
    if out.get("type") == "TYPE_UNSPECIFIED":
        del out["type"]
    if out.get("nullable") is True and "type" not in out and isinstance(out.get("anyOf"), list):
        out["anyOf"] = [*out["anyOf"], {"type": "null"}]
        del out["nullable"]
    return map_subschemas(out, _gemini_spellings)


# Berkeley Function Calling Leaderboard's type names (Python's) and their JSON Schema types.
BFCL_TYPES = {"dict": "object", "float": "number", "tuple": "array", "list": "array", "int": "integer",
              "str": "string", "bool": "boolean"}


def bfcl_to_json_schema(schema: Any) -> Any:
    """Rewrite BFCL's schema dialect (``"type": "dict"``, ``"float"``, ``"tuple"``, ``"any"``)
    into JSON Schema: the types are renamed and ``"any"`` drops its type. Anything else is kept."""
    if not isinstance(schema, dict):
        return schema
    out = dict(schema)
    kind = out.get("type")
    if kind == "any":
        del out["type"]
    elif isinstance(kind, str) and kind in BFCL_TYPES:
        out["type"] = BFCL_TYPES[kind]
    return map_subschemas(out, bfcl_to_json_schema)


def _make_nullable(schema: Schema) -> None:
    kind = schema.get("type")
    if isinstance(kind, str):
        schema["type"] = [kind, "null"]
    elif isinstance(kind, list) and "null" not in kind:
        schema["type"] = [*kind, "null"]
    if isinstance(schema.get("enum"), list) and None not in schema["enum"]:
        schema["enum"] = [*schema["enum"], None]


def drop_read_only(schema: Any) -> Any:
    """Remove ``readOnly`` properties: a request can never send them."""
    if not isinstance(schema, dict):
        return schema
    out = map_subschemas(schema, drop_read_only)
    props = out.get("properties")
    if isinstance(props, dict):
        hidden = {k for k, v in props.items() if isinstance(v, dict) and v.get("readOnly") is True}
        if hidden:
            out["properties"] = {k: v for k, v in props.items() if k not in hidden}
            if isinstance(out.get("required"), list):
                out["required"] = [r for r in out["required"] if r not in hidden]
                if not out["required"]:
                    del out["required"]
    return out


def is_object_schema(schema: Any) -> bool:
    """True for a plain object schema whose properties can be merged."""
    if not isinstance(schema, dict) or any(k in schema for k in ("oneOf", "anyOf", "allOf")):
        return False
    kind = schema.get("type")
    return kind == "object" or (kind is None and isinstance(schema.get("properties"), dict))


def flatten_all_of(schema: Any) -> Any:
    """Merge a top-level ``allOf`` of object schemas into one object schema.

    Common for request bodies (``allOf: [NewPet, {properties: {id}}]``);
    anything that is not a list of object schemas is returned unchanged.
    """
    if not isinstance(schema, dict) or not isinstance(schema.get("allOf"), list):
        return schema
    parts = [flatten_all_of(p) for p in schema["allOf"]]
    if not all(is_object_schema(p) for p in parts):
        return schema
    merged: Schema = {k: v for k, v in schema.items() if k != "allOf"}
    merged["type"] = "object"
    properties: dict[str, Any] = dict(merged.get("properties", {}))
    required: list[str] = list(merged.get("required", []))
    for part in parts:
        properties.update(part.get("properties", {}))
        required += [r for r in part.get("required", []) if r not in required]
        for key, value in part.items():
            if key not in ("properties", "required", "type"):
                merged.setdefault(key, value)
    merged["properties"] = properties
    if required:
        merged["required"] = required
    return merged
