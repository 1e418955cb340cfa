"""A request that needed several tools, cut into the part that asks for each one.

"Fit a model to the Adult Census data. Then, get the safety level of the Grand Canyon Dam."
needed `fitModel` and `getDamSafetyLevel`; as a hypothetical query of either tool the whole text
would pull it towards the other's topic. Its sentences (and clauses joined by "; ", ", then",
" and then ") are matched to the needed tools by the words they share with each tool's name and
description, so each tool learns the part that asked for it. A tool no part matches learns
nothing from the request.

Pure Python, no Django: text and tool texts in, parts out.
"""
from __future__ import annotations

import math
import re
from collections.abc import Mapping

_SENTENCE_END = re.compile(r"(?<=[.!?])[\"')\]]*\s+(?=[A-Z(])|;\s+|(?i:,?\s+and then\s+|,\s+then,?\s+)")
_LEADING_CONNECTIVE = re.compile(
    r"^(?:and\s+)?(?:then|finally|lastly|also|additionally|moreover|furthermore|next|after that|afterwards|"
    r"first(?:ly)?|second(?:ly)?|third(?:ly)?|besides|in addition|subsequently|meanwhile)\b[\s,:]*",
    re.IGNORECASE)
_WORD = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")
STOPWORDS = frozenset("""
a an and are as at be by can could do for from get give i in into is it me my need of on or please retrieve
show tell that the their then this to using want we what with would you your about some all also any
""".split())
MIN_PART_CHARS = 8


def words(text: str) -> set[str]:
    found = set()
    for word in _WORD.findall(text or ""):
        word = word.lower()
        if word in STOPWORDS or len(word) < 2:
            continue
        found.add(word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word)
    return found


def parts_of(text: str) -> list[str]:
    """The sentences and joined clauses of a request, without their leading "Then," or "Finally,"."""
    parts = []
    for piece in _SENTENCE_END.split(" ".join((text or "").split())):
        piece = _LEADING_CONNECTIVE.sub("", piece.strip()).strip(" ,;")
        if len(piece) >= MIN_PART_CHARS:
            parts.append(piece[0].upper() + piece[1:])
    return parts


def part_per_tool(text: str, tools: Mapping[str, str]) -> dict[str, str]:
    """{tool: the part of `text` that asks for it}, for the tools (name -> name and description)
    a part matches; one part per tool, a part going to the tool it matches best."""
    parts = parts_of(text)
    if not parts or not tools:
        return {}
    names = list(tools)
    tool_words = {name: words(_split_name(name)) | words(tools[name]) for name in names}
    name_words = {name: words(_split_name(name)) for name in names}
    # Words many of the tools share say little about which part is whose.
    spread = {w: sum(1 for name in names if w in tool_words[name]) for ws in tool_words.values() for w in ws}
    part_words = [words(p) for p in parts]
    scores = [[_score(pw, tool_words[name], name_words[name], spread, len(names)) for name in names]
              for pw in part_words]
    chosen: dict[str, str] = {}
    used_parts: set[int] = set()
    for score, i, j in sorted(((scores[i][j], i, j) for i in range(len(parts)) for j in range(len(names))),
                              key=lambda t: (-t[0], t[1], t[2])):
        if score <= 0 or names[j] in chosen or i in used_parts:
            continue
        chosen[names[j]] = parts[i]
        used_parts.add(i)
    return chosen


def _score(part: set[str], tool: set[str], name: set[str], spread: dict[str, int], n_tools: int) -> float:
    shared = part & tool
    if not shared:
        return 0.0
    weight = sum(math.log(1 + n_tools / spread.get(w, 1)) for w in shared)
    return weight + 0.5 * len(part & name)


def _split_name(name: str) -> str:
    return re.sub(r"[_.\-]+", " ", name)
