"""Tool-name rules and THE reversible mapping to provider-safe names.

The catalog allows dots in names (MCP servers use them, e.g. ``github.search``),
but OpenAI, Anthropic and Bedrock only accept ``^[a-zA-Z0-9_-]{1,64}$``, and Gemini
(Vertex AI) also wants a letter or ``_`` first.  Every door uses
this one mapping: route answers, the filter gateway and proxy, exports, imports,
feedback and sessions.  Names going out to those providers are mapped with
:func:`external_name` (``files.read_file`` -> ``files__read_file``); names coming
back are mapped back with a :class:`NameMap` built from the catalog's own names,
so the mapping never has to be stored.  MCP and plain names keep the real name.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable

# At least one letter or digit: "-", "." and ".." say nothing, and the exports refuse them.
CATALOG_NAME_RE = re.compile(r"^(?=[_.-]*[A-Za-z0-9])[A-Za-z0-9_.-]{1,128}$")
CATALOG_NAME_RULE = "letters, digits, '_', '-' and '.' (at least one letter or digit), at most 128 characters"
PROVIDER_NAME_RE = re.compile(r"^[A-Za-z0-9_-]{1,64}$")

CATALOG_NAME_MAX = 128
PROVIDER_NAME_MAX = 64
_HASH_LEN = 8
# The formats whose tool names must match PROVIDER_NAME_RE; the others carry the catalog name.
MAPPED_FORMATS = frozenset({"openai", "responses", "anthropic", "gemini", "bedrock"})
# Of those, the ones whose names must also start with a letter or "_" (Vertex AI's rule for Gemini).
LETTER_FIRST_FORMATS = frozenset({"gemini"})
_LETTER_FIRST = re.compile(r"^[A-Za-z_]")
_ILLEGAL_CATALOG = re.compile(r"[^A-Za-z0-9_.-]+")
_ILLEGAL_PROVIDER = re.compile(r"[^A-Za-z0-9_-]")


def is_catalog_name(name: object) -> bool:
    """True when ``name`` can be stored as-is in a toolcatalog/v1 document: the one rule every
    door (admin, API, imports, commands) checks before a name is stored, and every export relies on."""
    return isinstance(name, str) and bool(CATALOG_NAME_RE.match(name))


def is_provider_name(name: object) -> bool:
    """True when OpenAI and Anthropic accept ``name`` unchanged."""
    return isinstance(name, str) and bool(PROVIDER_NAME_RE.match(name))


def sanitize_name(raw: str) -> str:
    """Make ``raw`` use only catalog characters, keeping it readable.

    Illegal characters at either end are dropped and each inner run of them
    becomes one ``_`` ("List pets!" -> "List_pets").  The result may still be
    empty or too long; the caller decides whether to reject it.  Valid names
    are returned untouched so that sanitising never changes a good name.
    """
    name = raw.strip()
    if CATALOG_NAME_RE.match(name):
        return name
    # (A name of only "_", "." and "-" comes back unchanged and still invalid: the caller rejects it.)
    trimmed = re.sub(r"^[^A-Za-z0-9_.-]+|[^A-Za-z0-9_.-]+$", "", name)
    return _ILLEGAL_CATALOG.sub("_", trimmed)


def _short_hash(name: str) -> str:
    return hashlib.sha256(name.encode("utf-8")).hexdigest()[:_HASH_LEN]


def hashed_name(name: str, base: str | None = None) -> str:
    """``base`` cut to 55 characters + ``_`` + 8 hex digits of the name's hash.

    Used when a plain mapping would be lossy or too long: the hash of the
    *original* name keeps distinct names distinct, and the result is always a
    valid provider name of at most 64 characters.
    """
    readable = _ILLEGAL_PROVIDER.sub("_", base if base is not None else name)
    keep = PROVIDER_NAME_MAX - _HASH_LEN - 1
    return f"{readable[:keep]}_{_short_hash(name)}"


def external_name(name: str) -> str:
    """Map a catalog name to a name OpenAI and Anthropic accept.

    - A name that is already valid is returned unchanged.
    - Dots become ``__`` when the name has no ``__`` of its own, so
      ``github.search`` -> ``github__search`` stays readable and reversible.
    - Otherwise (the name already contains ``__``, or has other illegal
      characters) the plain replacement would be ambiguous, so the result
      gets a hash suffix (see :func:`hashed_name`).
    - Results longer than 64 characters are also cut and hash-suffixed.
    """
    if PROVIDER_NAME_RE.match(name):
        return name
    lossless = "__" not in name and not _ILLEGAL_PROVIDER.search(name.replace(".", ""))
    if lossless:
        candidate = name.replace(".", "__")
        if 0 < len(candidate) <= PROVIDER_NAME_MAX:
            return candidate
        return hashed_name(name, candidate)
    return hashed_name(name, name.replace(".", "_"))


class NameMap:
    """Both directions of the name mapping for one set of catalog names.

    :func:`external_name` alone can collide with a name that is literally in
    the catalog (``a.b`` and ``a__b`` both give ``a__b``).  The map resolves
    this deterministically: a name that is already provider-valid keeps
    itself, and a mapped name that would collide gets the hashed form.  Build
    it from the catalog's names both when exporting and when names come back.

    Gemini takes the same names, except one starting with a digit or ``-``
    (``1password``, which the others accept): it gets a ``_`` in front there
    (``_1password``, or the hashed form should that be taken), and only a
    Gemini name comes back to the tool that way.
    """

    def __init__(self, names: Iterable[str]) -> None:
        self._to_external: dict[str, str] = {}
        self._to_internal: dict[str, str] = {}
        unique = sorted(set(names))
        # Names that need no mapping claim their spelling first.
        for name in unique:
            if PROVIDER_NAME_RE.match(name):
                self._assign(name, name)
        for name in unique:
            if name not in self._to_external:
                self._assign(name, self._free_external(name))
        self._letter_first: dict[str, str] = {}  # catalog name -> its Gemini name, where that differs
        self._letter_first_internal: dict[str, str] = {}
        for name in unique:
            external = self._to_external[name]
            if not _LETTER_FIRST.match(external):
                letter_first = self._free_letter_first(name, external)
                self._letter_first[name] = letter_first
                self._letter_first_internal[letter_first] = name

    def _assign(self, name: str, external: str) -> None:
        self._to_external[name] = external
        self._to_internal[external] = name

    def _free_external(self, name: str) -> str:
        candidate = external_name(name)
        if candidate not in self._to_internal:
            return candidate
        candidate = hashed_name(name, name.replace(".", "_"))
        counter = 2
        while candidate in self._to_internal:  # only on a hash collision
            candidate = hashed_name(f"{name}#{counter}", name.replace(".", "_"))
            counter += 1
        return candidate

    def _free_letter_first(self, name: str, external: str) -> str:
        candidate = f"_{external}"
        counter = 1
        while len(candidate) > PROVIDER_NAME_MAX or candidate in self._to_internal \
                or candidate in self._letter_first_internal:
            candidate = hashed_name(name if counter == 1 else f"{name}#{counter}", candidate)
            counter += 1
        return candidate

    def external(self, name: str, fmt: str = "openai") -> str:
        """The name a tool has in `fmt`: provider-safe for OpenAI, Anthropic, Gemini and Bedrock
        (also for unknown names), the catalog name itself for MCP and "names"."""
        if fmt not in MAPPED_FORMATS:
            return name
        external = self._to_external.get(name) or external_name(name)
        if fmt in LETTER_FIRST_FORMATS and not _LETTER_FIRST.match(external):
            return self._letter_first.get(name) or self._free_letter_first(name, external)
        return external

    def internal(self, external: str) -> str:
        """The catalog name behind a provider name; KeyError if unknown."""
        return self._to_internal[external]

    def get(self, external: str, default: str | None = None, fmt: str = "openai") -> str | None:
        """Like :meth:`internal`, returning ``default`` for unknown names; `fmt` "gemini" also
        knows the names only Gemini has (``_1password``).

        For a name in a tool list being imported, which defines a tool: in an OpenAI list,
        ``_1password__get_item`` is a tool of that very name, not Gemini's spelling of
        ``1password.get_item``. A name a client sends back about tools it was given is read
        with :meth:`referred` instead."""
        if fmt in LETTER_FIRST_FORMATS and external in self._letter_first_internal:
            return self._letter_first_internal[external]
        return self._to_internal.get(external, default)

    def referred(self, written: str) -> str | None:
        """The catalog tool a name sent back refers to (feedback, ``select:``, a tool asked for by
        name), whatever format gave the client its tools: the catalog name itself, else any of the
        tool's provider names (``files__read_file``, Gemini's ``_1password__get_item``); None if none.

        Doors that take names back do not always know the format the client read, and need not:
        a catalog name always wins (a provider-safe one is its own provider name, so it is no other
        tool's), and a Gemini name is chosen only where no other spelling has it, so each spelling
        belongs to one tool."""
        if written in self._to_external:
            return written
        return self._to_internal.get(written) or self._letter_first_internal.get(written)

    def __contains__(self, external: object) -> bool:
        return external in self._to_internal

    def __len__(self) -> int:
        return len(self._to_external)

    def items(self) -> list[tuple[str, str]]:
        """(catalog name, external name) pairs, sorted by catalog name."""
        return sorted(self._to_external.items())
