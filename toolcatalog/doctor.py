"""The catalog doctor's checks that need nothing but the catalog's own text and vectors.

Pure Python and numpy, no Django: plain lists in, findings out, so they are tested and
benchmarked alone (the hints check is handed its one catalog lookup as a function).
routing/doctor.py gathers the inputs (the live snapshot, the usage log), adds what needs the
engine (hypothetical queries routed through it), and stores the report.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence, Set
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .tool_mentions import mentioned_names

MIN_DESCRIPTION_WORDS = 4
MIN_DESCRIPTION_CHARS = 24
_WORD = re.compile(r"[A-Za-z][a-z]*|[A-Z]+(?![a-z])|\d+")
_SERVER_SEPARATOR = re.compile(r"\.|__")

# Verbs tool descriptions start with or use ("Get ...", "Returns ...", "Use this to search ...").
ACTION_VERBS = frozenset("""
accept activate add adjust aggregate alert allocate analyse analyze annotate answer append apply approve
archive ask assess assign attach attend authenticate authorize backup block book browse build buy calculate
call cancel capture change charge check classify clean clear clone close collect combine comment compare
compile complete compose compress compute configure confirm connect convert copy count create crop cut debug
decline decode decrypt delete deploy describe detect determine diagnose disable download draft draw edit email
embed empty enable encode encrypt end enqueue estimate evaluate execute expand explain export extract fetch
file fill filter find fix flag follow forecast fork format forward generate geocode get give group guess
handle hide identify import index insert install invite invoke join keep kill label launch learn list load
locate lock log look lookup make manage map mark measure merge message migrate modify monitor move mute
navigate notify open optimize order organize pair parse pause pay pick pin ping place plan play plot post
predict prepare preview print process provide publish pull purchase push put query queue rank rate read
receive recommend record redact refresh register reject release reload remind remove rename render reorder
repair replace reply report request reschedule reserve reset resize resolve restart restore resume retrieve
return review revoke rewrite roll rotate route run save scan schedule score search see select sell send set
share shorten show shuffle sign simulate skip snooze solve sort speak split start stop store stream submit
subscribe suggest summarise summarize swap switch sync tag take test text track train transcribe transfer
translate trigger turn undo unfollow uninstall unlock unmute unpin unsubscribe update upgrade upload validate
verify view vote watch write zip
""".split())
_VERB_SUFFIXES = ("ize", "ise", "ate", "ify")


@dataclass(frozen=True)
class ToolText:
    """What the checks read of a tool."""

    name: str
    description: str
    category: str | None = None


@dataclass
class WeakDescription:
    tool: str
    description: str
    reasons: list[str]


@dataclass
class NameGroup:
    """Tools whose names differ only in spelling: case, separators, word order, plural, server prefix."""

    key: str
    tools: list[str]
    categories: list[str | None]
    servers: list[str]


@dataclass
class SimilarPair:
    a: str
    b: str
    similarity: float
    detail: dict[str, str] = field(default_factory=dict)


def words(text: str) -> list[str]:
    """Lower-case words of a name or a sentence: `getUserInfo`, `get_user_info` -> get, user, info."""
    return [w.lower() for w in _WORD.findall(text or "")]


def _singular(word: str) -> str:
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def is_action(word: str) -> bool:
    """A verb a description can start with, or its third person ("Returns", "searches")."""
    word = word.lower()
    candidates = {word, word[:-1] if word.endswith("s") else word, word[:-2] if word.endswith("es") else word,
                  word[:-3] + "y" if word.endswith("ies") else word}
    return any(c in ACTION_VERBS or (len(c) > 5 and c.endswith(_VERB_SUFFIXES)) for c in candidates)


# --- weak descriptions -------------------------------------------------------------------------

def weak_descriptions(tools: Sequence[ToolText]) -> list[WeakDescription]:
    """Descriptions that give the router (and the model) little to go on."""
    found = []
    for tool in tools:
        text = " ".join((tool.description or "").split())
        description_words = words(text)
        reasons = []
        if len(description_words) < MIN_DESCRIPTION_WORDS or len(text) < MIN_DESCRIPTION_CHARS:
            count = len(description_words)
            reasons.append(f"very short ({count} word{'' if count == 1 else 's'})")
        if description_words and not any(is_action(w) for w in description_words):
            reasons.append("no action: says what it is, not what it does")
        name_words = {_singular(w) for w in words(_own_name(tool.name))}
        if description_words and {_singular(w) for w in description_words} <= name_words | {"a", "an", "the"}:
            reasons.append("repeats the name")
        if reasons:
            found.append(WeakDescription(tool.name, text, reasons))
    return found


# --- duplicate names ---------------------------------------------------------------------------

def _own_name(name: str) -> str:
    """A tool's name without its server prefix (`github.search_issues` -> `search_issues`)."""
    return _SERVER_SEPARATOR.split(name)[-1]


def _server(name: str) -> str:
    parts = _SERVER_SEPARATOR.split(name)
    return parts[0] if len(parts) > 1 else ""


def name_key(name: str) -> str:
    """Equal for names that differ only in case, separators, word order, plural or server prefix."""
    return " ".join(sorted(_singular(w) for w in words(_own_name(name))))


def duplicate_names(tools: Sequence[ToolText]) -> list[NameGroup]:
    groups: dict[str, list[ToolText]] = {}
    for tool in tools:
        key = name_key(tool.name)
        if key:
            groups.setdefault(key, []).append(tool)
    return [NameGroup(key, [t.name for t in members], [t.category for t in members],
                      [_server(t.name) for t in members])
            for key, members in sorted(groups.items()) if len(members) > 1]


# --- similar vectors ---------------------------------------------------------------------------

def _normalised_rows(matrix: np.ndarray) -> np.ndarray:
    matrix = np.asarray(matrix, dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix / np.where(norms == 0, 1.0, norms)


def _close_pairs(matrix: np.ndarray, threshold: float, block: int = 1024) -> Iterator[tuple[int, int, float]]:
    """(i, j, cosine) with i < j and cosine >= threshold, in blocks (no n x n matrix in memory)."""
    normed = _normalised_rows(matrix)
    for start in range(0, len(normed), block):
        sims = normed[start:start + block] @ normed.T
        rows, cols = np.nonzero(sims >= threshold)
        for r, c in zip(rows.tolist(), cols.tolist()):
            i = start + r
            if i < c:
                yield i, c, float(sims[r, c])


def similar_tools(names: Sequence[str], matrix: np.ndarray, threshold: float, limit: int = 200) -> list[SimilarPair]:
    """Tool pairs whose vectors are at least `threshold` alike, most alike first."""
    if len(names) < 2:
        return []
    pairs = [SimilarPair(names[i], names[j], round(sim, 4)) for i, j, sim in _close_pairs(matrix, threshold)]
    return sorted(pairs, key=lambda p: (-p.similarity, p.a, p.b))[:limit]


def overlapping_queries(owners: Sequence[str], texts: Sequence[str], matrix: np.ndarray, threshold: float,
                        limit: int = 200) -> list[SimilarPair]:
    """Hypothetical queries of two different tools that say nearly the same thing."""
    if len(owners) < 2:
        return []
    best: dict[tuple[str, str], SimilarPair] = {}
    for i, j, sim in _close_pairs(matrix, threshold):
        if owners[i] == owners[j]:
            continue
        a, b, text_a, text_b = owners[i], owners[j], texts[i], texts[j]
        if a > b:
            a, b, text_a, text_b = b, a, text_b, text_a
        if (a, b) not in best or sim > best[(a, b)].similarity:
            best[(a, b)] = SimilarPair(a, b, round(sim, 4), {"query_a": text_a, "query_b": text_b})
    return sorted(best.values(), key=lambda p: (-p.similarity, p.a, p.b))[:limit]


# --- guidance that names a tool no request is offered -------------------------------------------

@dataclass(frozen=True)
class Guidance:
    """A hint the engine returns beside the tools: a tool's usage hint or a category's workflow hint."""

    owner_kind: str  # "tool" or "category"
    owner: str
    field: str  # "usage_hint" or "workflow_hint"
    text: str


@dataclass
class GuidanceNamingMissingTools:
    owner_kind: str
    owner: str
    field: str
    tools: list[dict[str, Any]]  # each tool it names that is never offered: its name and why_missing's answer


def guidance_naming_missing_tools(
    guidance: Iterable[Guidance], offered: Set[str],
    why_missing: Callable[[set[str]], Mapping[str, Mapping[str, Any]]],
) -> list[GuidanceNamingMissingTools]:
    """Hints that tell the model to call a tool no request is offered.

    A hint's words are read as a rename reads them (tool_mentions): `offered` are the names the
    engine offers, so every other word is looked up, all hints' together in one call of
    `why_missing`, which answers for the words that name a tool never offered (or one that no
    longer exists) and leaves the ordinary words out.
    """
    unoffered = []
    for hint in guidance:
        names = [name for name in mentioned_names(hint.text) if name not in offered]
        if names:
            unoffered.append((hint, names))
    missing = why_missing({name for _, names in unoffered for name in names})
    found = []
    for hint, names in unoffered:
        tools = [{"name": name, **missing[name]} for name in names if name in missing]
        if tools:
            found.append(GuidanceNamingMissingTools(hint.owner_kind, hint.owner, hint.field, tools))
    return found
