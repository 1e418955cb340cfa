"""Explicit selection in a query: `select:NAME` and `select:/REGEX/` are always honoured.

An agent (or a person trying the admin) that knows the tool it wants names it, and no
ranking may drop it:

    select:weather.get_forecast            one tool, by its catalog or exported name
    select:get_forecast,send_email         several, comma-separated (or several select: terms)
    select:/^github\\./                     every tool whose name the regular expression finds

The terms are taken out of the query; what is left (if anything) is ranked as usual and follows
the explicit tools. The request's limit counts the ranked tools only, so naming tools never
pushes out the ones the ranking would send. A regular expression is bounded two ways, because
Python's `re` has no timeout: it is at most `MAX_PATTERN_CHARS` characters, it is only ever
run against tool names (at most 128 characters each), and the whole search over the catalog
runs under a time budget (`PATTERN_BUDGET_SECONDS`, the `regex` package's timeout); names not
reached within the budget are not matched, and the answer says so. It matches with
`regex.search` (anywhere in the name; anchor with ^ and $), case-sensitively unless the
pattern starts with `(?i)`. At most `MAX_PATTERN_MATCHES` tools come from one pattern, in
name order.
"""
from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import regex

PREFIX = "select:"
MAX_PATTERN_CHARS = 200
MAX_NAMES = 32  # names taken from one query; more are ignored (and reported)
MAX_PATTERN_MATCHES = 32
PATTERN_BUDGET_SECONDS = 0.05

_TERM = regex.compile(r"(?<!\S)select:(?:/(?P<pattern>(?:\\.|[^/\\])*)/|(?P<names>\S+))", regex.IGNORECASE)


@dataclass(frozen=True)
class ExplicitQuery:
    """A query split into its explicit terms and the rest."""

    names: tuple[str, ...]  # as written, in order, without duplicates
    patterns: tuple[str, ...]
    rest: str  # the query without its select: terms, whitespace collapsed
    notes: tuple[str, ...] = ()  # what could not be honoured, for the answer

    @property
    def any(self) -> bool:
        return bool(self.names or self.patterns)


def parse(query: str) -> ExplicitQuery:
    """The `select:` terms of `query` (see the module docstring) and the text around them."""
    names: list[str] = []
    patterns: list[str] = []
    notes: list[str] = []
    for term in _TERM.finditer(query or ""):
        if term.group("pattern") is not None:
            pattern = term.group("pattern")
            if len(pattern) > MAX_PATTERN_CHARS:
                notes.append(f"select:/.../ ignored: a pattern may have at most {MAX_PATTERN_CHARS} characters")
            elif pattern:
                patterns.append(pattern)
        else:
            names.extend(n for n in term.group("names").split(",") if n)
    names = list(dict.fromkeys(names))
    if len(names) > MAX_NAMES:
        notes.append(f"select: took the first {MAX_NAMES} names of {len(names)}")
        names = names[:MAX_NAMES]
    rest = " ".join(_TERM.sub(" ", query or "").split())
    return ExplicitQuery(tuple(names), tuple(dict.fromkeys(patterns)), rest, tuple(notes))


@dataclass(frozen=True)
class Resolved:
    names: tuple[str, ...]  # internal names, in the order asked (names first, then pattern hits)
    notes: tuple[str, ...]


def resolve(explicit: ExplicitQuery, candidates: Sequence[str], internal_name: Callable[[str], str | None],
            clock: Callable[[], float] = time.perf_counter) -> Resolved:
    """The candidates the explicit terms select.

    `candidates` are the names the caller may see, in a stable order (a name outside them is
    treated exactly like a name that does not exist, so a restricted caller learns nothing);
    `internal_name` maps an exported or namespaced spelling back to the catalog name (None
    when it knows none).
    """
    allowed = set(candidates)
    found: list[str] = []
    notes = list(explicit.notes)
    for written in explicit.names:
        name = written if written in allowed else internal_name(written)
        if name is not None and name in allowed:
            found.append(name)
        else:
            notes.append(f"select:{written} matched no tool")
    for pattern in explicit.patterns:
        hits, note = _pattern_hits(pattern, candidates, clock)
        found.extend(hits)
        if note:
            notes.append(note)
    return Resolved(tuple(dict.fromkeys(found)), tuple(notes))


def _pattern_hits(pattern: str, candidates: Sequence[str], clock: Callable[[], float]) -> tuple[list[str], str]:
    try:
        compiled = regex.compile(pattern)
    except (regex.error, OverflowError, RecursionError) as exc:
        return [], f"select:/{pattern}/ is not a valid regular expression: {exc}"
    deadline = clock() + PATTERN_BUDGET_SECONDS
    hits: list[str] = []
    for name in sorted(candidates):
        remaining = deadline - clock()
        if remaining <= 0:
            return hits, f"select:/{pattern}/ stopped at its time budget ({PATTERN_BUDGET_SECONDS * 1000:.0f} ms)"
        try:
            if compiled.search(name, timeout=remaining):
                hits.append(name)
        except TimeoutError:
            return hits, f"select:/{pattern}/ stopped at its time budget ({PATTERN_BUDGET_SECONDS * 1000:.0f} ms)"
        if len(hits) > MAX_PATTERN_MATCHES:
            return hits[:MAX_PATTERN_MATCHES], (f"select:/{pattern}/ matched more than {MAX_PATTERN_MATCHES} tools; "
                          f"the first {MAX_PATTERN_MATCHES} by name are kept")
    if not hits:
        return hits, f"select:/{pattern}/ matched no tool"
    return hits, ""
