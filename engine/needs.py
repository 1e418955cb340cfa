"""Requests that need several tools: split them into needs, then cover every need.

"Translate this word from Telugu. Then translate a Spanish sentence to French. Finally
analyse the imbalanced data set." needs three tools. Embedded whole, the request is one
vector somewhere between the three, and the tool of the longest part wins; ranked whole by
BM25, the parts' words compete for the same places. So a request is split into its needs
(sentences, and clauses joined by sequence words such as "then", "also", "finally"), each
need is ranked on its own, and the answer covers the needs in turn (`cover_order`).

A request with one need is one part and is ranked as before. Measured with the default
parameters (bench/quality.py, recall@5 / recall@10): seal-dev, 500 of whose 700 requests need
2-6 tools, 0.893 / 0.938 before (sequence words only, round-robin merge), 0.943 / 0.963
after; bfcl-dev and plugins-dev, whose requests need one tool, move by less than 0.005.
Joining a long request's parts down to MAX_NEEDS instead of dropping those past it
(`joined_down_to`): seal-dev 0.942 / 0.963 -> 0.949 / 0.965, its curated split 0.934 / 0.961
-> 0.943 / 0.964; every other set unchanged. Covering a request of three needs or more again once
each is covered (`cover_order`): seal-dev 0.949 / 0.965 -> 0.952 / 0.973, its curated split
0.943 / 0.964 -> 0.945 / 0.972, plugins-dev r@5 0.865 -> 0.866; every other set unchanged. With
two needs as well, seal-dev gained 0.002 more but bfcl-dev lost 0.003 at r@10 and plugins-dev
0.002 at r@5. Ranking a task list's tools by the recall each is expected to add instead
(`expected_cover_order`), the chances of each row summed: seal-dev 0.953 / 0.976 -> 0.962 /
0.978, its curated split 0.951 / 0.973 -> 0.956 / 0.975; every other set unchanged.

"and" cuts a need in a request of several parts. There a part is cut at an "and" with at
least MIN_HALF_WORDS content words on each side ("the official language of Mexico and the number
of bilingual individuals in the country"), while the request stays within MAX_NEEDS, and the
halves share the part's weight (`and_halves`): seal-dev recall@5 / @10 0.962 / 0.978 -> 0.967 /
0.981, its 500 multi-tool requests 0.957 / 0.976 -> 0.963 / 0.979, its curated split 0.956 / 0.975
-> 0.961 / 0.978; bfcl-dev and plugins-dev identical at recall@5 and @10 and within one request at
recall@1. Measured and not taken: each half weighing one need, bfcl-dev's recall@1 lost a request
("... I believe the latitude is around 13.08 and the longitude 80.27" then outweighed the weather it
asks for) and seal-dev gained less (0.965 / 0.980); three content words a side, plugins-dev's
curated split lost 0.002 at recall@5 ("the name and job title of" is no two needs); five, seal-dev
0.966 / 0.979.

A request of one part is cut at "and" the same way ("Send the weekly sales report to Anna, and draw
a chart of the monthly totals"), but its halves weigh ONE_PART_HALVES_WEIGHT together, less than
one need, the request is embedded as written beside them, and its places go by expected coverage
however many halves it has: a chatty request for one tool says "and" too, and the whole request,
weighing four times its halves, keeps the tool it points at. Measured on two-tool requests made of
two one-tool requests joined with ", and" (bench/robustness.py, "paired"), where the whole request
had lost the second tool (recall@5 bfcl-dev 0.773, plugins-dev 0.810, seal-dev 0.790, below its
BM25 at 0.815): 0.880, 0.853 and 0.950. On the dev sets' own requests (recall@5 / @10): plugins-dev
0.8933 / 0.9180 -> 0.8947 / 0.9180, seal-dev 0.9666 / 0.9806 -> 0.9671 / 0.9811, its curated split
0.9608 / 0.9781 -> 0.9608 / 0.9786, plugins-dev's curated split 0.9473 / 0.9654 -> 0.9473 / 0.9646
(one request), bfcl-dev and recall@1 everywhere unchanged. Cut with each half weighing a need and
ranked as a request of two parts (every need covered first), plugins-dev's recall@1 went 0.753 ->
0.745, as it did when "and" cut every request before needs were weighted. A cut request embeds its
halves beside itself, in the same call: route p50 with a fresh embedding 7.2 -> 7.8 ms on
plugins-dev (57 of 300 requests cut), within 0.5 ms on seal-dev and bfcl-dev. Where no "and" has
MIN_HALF_WORDS a side, a request of one part is cut at its one ", and" with MIN_COMMA_HALF_WORDS a
side (`comma_and_halves`): "Translate this letter to French, and email it to Anna".
"""
from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from bm25s.stopwords import STOPWORDS_EN_PLUS

from .lexical import STOPWORDS
from .scoring import best_first

# Sentence ends followed by what starts a sentence; sequence words that start a new need
# ("next" only as "Next,": "next week" is a date, not a step).
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(])")
_SEQUENCE_WORDS = re.compile(
    r"\s*[,;]?\s*\b(?:and then|then|after that|afterwards|and finally|finally|lastly|additionally|also|"
    r"furthermore|moreover|as well as|next(?=\s*,))\b[\s,:]*",
    re.IGNORECASE,
)
_TRAILING_CONJUNCTION = re.compile(r"\s+(?:and|or)$", re.IGNORECASE)
_AND = re.compile(r",?\s+and\s+", re.IGNORECASE)
_COMMA_AND = re.compile(r",\s+and\s+", re.IGNORECASE)
# A part needs this many content words to be a need of its own: "and then?", "I am" and "Can
# you help me with that?" are not one. BM25's short stop list keeps pronouns and auxiliaries
# (they can tell tools apart); counting needs, NLTK's English list drops them too.
# Measured and not taken (recall@5 / @10, `auto`): courtesy words counted as stop words too
# (help, assistance, tasks, several, thanks, ...), so "I need your help with multiple tasks" is no
# need: seal-dev 0.9534 / 0.9763 -> 0.9543 / 0.9765, its curated split 0.9510 / 0.9732 -> 0.9520 /
# 0.9726, every other set identical; a part that opens as a statement ("My user ID is 63", "The
# budget is ...") joined to the part before it: seal-dev 0.9526 / 0.9772, its curated split
# 0.9521 / 0.9735 (joined on the first word alone: 0.9510 / 0.9759, 0.9497 / 0.9710). Within two
# requests of 700, either way.
MIN_NEED_WORDS = 2
_NOT_CONTENT = frozenset(STOPWORDS_EN_PLUS) | STOPWORDS
_WORD = re.compile(r"[^\W_]+")  # letters and digits of any script; "I'm" is two words
MAX_NEEDS = 6
# In a request of several parts, a part is cut at "and" only where each side holds this many
# content words: "labor and employment policies", "the name and job title" stay one need.
MIN_HALF_WORDS = 4
# The halves of a request of one part weigh this much together, less than one need: its chatty
# requests for one tool say "and" too ("a hotel in Osaka that has excellent ratings and positive
# reviews from previous customers"), and the whole request, embedded as written, keeps the tool it
# points at first. Weighing one need together, plugins-dev's recall@5 was 0.894 against 0.895 and its
# curated split's 0.946 against 0.947.
ONE_PART_HALVES_WEIGHT = 0.5
# A request of one part whose only ", and" has fewer than MIN_HALF_WORDS content words on a side is
# cut there still where each side has this many: the comma marks two clauses, and a request for
# two tools is often short on one side ("Translate this letter to French, and email it to Anna").
# Measured on the dev sets (recall@1 / @5 / @10): identical to four decimals; on "paired"
# (bench/robustness.py) recall@5 bfcl-dev 0.880 -> 0.887, plugins-dev 0.852 -> 0.853, seal-dev
# 0.950 -> 0.965, and no change with the pairs joined by " and " without the comma. Measured and not
# taken: every ", and" of every request cut at two content words a side (three), plugins-dev 0.8947 ->
# 0.8933 (0.8940), seal-dev 0.9671 -> 0.9652 (0.9656), its curated split 0.9608 -> 0.9591 (0.9591).
MIN_COMMA_HALF_WORDS = 2
# In `cover_order`, the whole request weighs as much as this many needs: it keeps the tool
# the request as a whole points at first, and decides among the needs' runners-up. The needs
# weigh one each: weighting each by its best score over the best need's, against preambles ("I
# need your help with a research project") that match no tool well, moved seal-dev's recall@10
# 0.976 -> 0.977 and its curated split 0.974 -> 0.973 (cubed: 0.977 and 0.975, the curated
# split's recall@5 0.951 -> 0.948), every other set within one request. By how far a need's best tool
# stands out (its best score less its twentieth, or in standard deviations over the catalog),
# seal-dev's recall@5 and @10 moved by at most 0.0005 and its curated split's recall@5 lost 0.002.
WHOLE_REQUEST_WEIGHT = 2.0
# A request of at least this many needs is a task list, whose places go by expected coverage
# (`expected_cover_order`). Two parts are mostly a request and a detail or courtesy of it ("For
# temperature use Celsius?", "Any recommendations?"), whose runners-up would take the places of
# the request's own: ranked by expected coverage too, bfcl-dev's recall@10 went 0.974 -> 0.970 and
# plugins-dev's recall@5 0.893 -> 0.891 (seal-dev 0.962 / 0.978 -> 0.964 / 0.980).
TASK_LIST_MIN_NEEDS = 3
# The temperature that turns a row's 0-1 scores into the chance that each tool is the one it
# needs (a softmax over the catalog). It is the one at which those chances are best calibrated
# (highest likelihood of the right tool) on the one-tool requests of the dev sets: seal-dev 0.03,
# bfcl-dev 0.04, plugins-dev 0.05. seal-dev's recall@5 / @10 over 0.01 to 0.04: 0.959 to 0.962 /
# 0.978, its curated split 0.953 to 0.956 / 0.974 to 0.975, against 0.953 / 0.976 and 0.951 /
# 0.973 for the covering rounds this replaced; at 0.05 the curated split's recall@5 fell to 0.946.
NEED_TEMPERATURE = 0.03
# A request of at least this many needs is ranked whole by the mean of its needs' vectors, not
# embedded a second time (router._QueryVectors). With two, the whole request carries what one
# part says of the other ("X. For temperature use Celsius?"): bfcl-dev recall@1 lost 0.007 so.
WHOLE_FROM_NEEDS_MIN = 3


@dataclass(frozen=True)
class Need:
    """One need of a request: its text, and its weight among the request's needs: 1, a share of one
    for the halves of a part cut at "and", a share of ONE_PART_HALVES_WEIGHT for the halves of a
    request of one part (so they weigh less than one together: `of_one_part`)."""

    text: str
    weight: float = 1.0


def split_needs(query: str) -> list[Need]:
    """The needs of a request: its sentences and sequence-word clauses with at least
    MIN_NEED_WORDS content words, at most MAX_NEEDS of them (`joined_down_to`), each cut at "and"
    while there is room (`and_halves`). A request of one part is cut at "and" too, its halves
    weighing ONE_PART_HALVES_WEIGHT together, and where no "and" cuts it, at its one ", and"
    (`comma_and_halves`); `[Need(query)]` when it has no "and" to cut."""
    parts: list[str] = []
    for sentence in _SENTENCE_END.split((query or "").strip()):
        for clause in _SEQUENCE_WORDS.split(sentence):
            clause = _TRAILING_CONJUNCTION.sub("", clause.strip(" ,;."))
            if content_words(clause) >= MIN_NEED_WORDS:
                parts.append(clause)
    if len(parts) < 2:
        halves = joined_down_to(and_halves(parts[0]), MAX_NEEDS) if parts else []
        if len(halves) < 2 and parts:
            halves = comma_and_halves(parts[0])
        if len(halves) < 2:
            return [Need(query)]
        return [Need(half, ONE_PART_HALVES_WEIGHT / len(halves)) for half in halves]
    parts = joined_down_to(parts, MAX_NEEDS)
    needs: list[Need] = []
    room = MAX_NEEDS - len(parts)
    for part in parts:
        halves = and_halves(part)
        if len(halves) - 1 > room:
            halves = [part]
        room -= len(halves) - 1
        needs += [Need(half, 1.0 / len(halves)) for half in halves]
    return needs


def and_halves(part: str) -> list[str]:
    """`part` cut at each "and" with at least MIN_HALF_WORDS content words on either side, up to
    the next cut: "get the biodiversity level in a rainforest and the environmental health index in
    London" is two halves, "gather information about labor and employment policies" one."""
    halves: list[str] = []
    for piece in _AND.split(part):
        if halves and (content_words(halves[-1]) < MIN_HALF_WORDS or content_words(piece) < MIN_HALF_WORDS):
            halves[-1] = f"{halves[-1]} and {piece}"
        else:
            halves.append(piece)
    return halves


def comma_and_halves(part: str) -> list[str]:
    """`part` cut at its one ", and" where each side holds MIN_COMMA_HALF_WORDS content words:
    "Translate this letter to French, and email it to Anna" is two halves; `[part]` otherwise."""
    pieces = _COMMA_AND.split(part)
    if len(pieces) != 2 or min(content_words(piece) for piece in pieces) < MIN_COMMA_HALF_WORDS:
        return [part]
    return pieces


def of_one_part(weights: Sequence[float]) -> bool:
    """Whether needs of these weights are the halves of a request of one part: they weigh less
    than one need together, where the parts of a longer request weigh one each."""
    return sum(weights) < 1.0


def whole_from_needs(needs: Sequence[Need]) -> bool:
    """Whether the request's own vector is the mean of its needs' (WHOLE_FROM_NEEDS_MIN). A request
    of one part is embedded as written however many halves it has: the mean of its halves took
    plugins-dev's recall@1 0.753 -> 0.749."""
    return len(needs) >= WHOLE_FROM_NEEDS_MIN and not of_one_part([need.weight for need in needs])


def content_words(text: str) -> int:
    """How many words of `text` are not stop words ("I'm" is two, both stop words)."""
    return sum(1 for word in _WORD.findall(text.lower()) if word not in _NOT_CONTENT)


def joined_down_to(parts: list[str], count: int) -> list[str]:
    """`parts` with neighbours joined, the pair with the fewest content words first, until
    `count` remain.

    Why join rather than keep the first `count`: a long request states its last needs last, and
    cutting them off lost their tools (seal-dev has 53 requests of 7 to 12 parts). Joined, every
    part is still ranked, and a request still costs at most `count` needs; the shortest parts
    are mostly details or courtesies that belong to a neighbour.
    """
    joined = list(parts)
    if len(joined) <= count:
        return joined  # most requests: no part to join, so no words to count again
    words = [content_words(part) for part in joined]
    while len(joined) > count:
        k = min(range(len(joined) - 1), key=lambda i: words[i] + words[i + 1])
        joined[k:k + 2] = [f"{joined[k]}. {joined[k + 1]}"]
        words[k:k + 2] = [words[k] + words[k + 1]]
    return joined


def cover_order(whole: np.ndarray, needs: list[np.ndarray], pool: np.ndarray, count: int,
                weights: list[float] | None = None) -> np.ndarray:
    """Tool indices, best first: for a task list (TASK_LIST_MIN_NEEDS needs or more) or a request of
    one part cut at "and" by expected coverage, the needs weighing `weights` (one each by default),
    otherwise every need covered before any gets a second tool (`first_cover_order`)."""
    if len(needs) >= TASK_LIST_MIN_NEEDS or (weights is not None and of_one_part(weights)):
        return expected_cover_order(whole, needs, pool, count, weights)
    return first_cover_order(whole, needs, pool, count)


def expected_cover_order(whole: np.ndarray, needs: list[np.ndarray], pool: np.ndarray, count: int,
                         weights: list[float] | None = None) -> np.ndarray:
    """Tool indices, best first, by how much of the request they are expected to cover.

    Each row (the whole request, weighing WHOLE_REQUEST_WEIGHT, and each need, weighing its weight,
    one by default) is turned into the chance that each tool is the one it needs: a softmax of its
    scores at NEED_TEMPERATURE. A tool's worth is its chances summed over the rows, the recall it
    is expected to add. So a need sure of its tool gives its runner-up's place to a need torn
    between two ("check the availability of rooms": getAvailableRooms or getAvailability), and a
    part that suits many tools alike ("I need your help with several tasks") spreads its chance
    thin and takes no place from the others.
    Ties go to the lower index (alphabetical). Only tools some row scores above zero qualify.
    """
    candidates = np.flatnonzero(pool & (np.maximum(whole, np.max(needs, axis=0)) > 0))
    if not len(candidates):
        return candidates
    worth = np.zeros(len(candidates))
    need_weights = [1.0] * len(needs) if weights is None else weights
    for weight, row in [(WHOLE_REQUEST_WEIGHT, whole), *zip(need_weights, needs, strict=True)]:
        scaled = row[candidates].astype(np.float64) / NEED_TEMPERATURE
        chance = np.exp(scaled - scaled.max())
        worth += weight * chance / chance.sum()
    return best_first(candidates, worth, count)


def first_cover_order(whole: np.ndarray, needs: list[np.ndarray], pool: np.ndarray, count: int) -> np.ndarray:
    """Tool indices, best first, chosen so that every need is covered before any gets a second tool.

    Scores are 0-1 per tool (whole request and each need). Each step picks the tool with the
    largest total gain, the gain for a row being how much the tool's score rises above the
    best score already picked for that row (the whole request weighs WHOLE_REQUEST_WEIGHT);
    ties go to the whole request's score, then to the lower index (alphabetical). Once every row
    is covered, nothing gains any more and the rest follow the whole request.
    """
    rows = np.vstack([whole[None, :], *[n[None, :] for n in needs]]).astype(np.float64)
    weights = np.r_[WHOLE_REQUEST_WEIGHT, np.ones(len(needs))][:, None]
    candidates = np.flatnonzero(pool & (rows.max(axis=0) > 0))
    # In C order: `rows[:, candidates]` comes out in Fortran order, where each step's sum over the
    # rows took 48 us instead of 4 (4,076 tools, six rows).
    rows = rows.take(candidates, axis=1)
    covered = np.zeros(len(rows))
    # Each row's weighted gain per tool. A pick changes only the rows it raises, so only those are
    # computed again: 4,076 tools, six rows, limit 20 (as `evaluate`): 2.0 ms before either
    # change, 0.77 ms in C order, 0.38 ms with both; limit 5: 0.54 -> 0.20 ms. The same picks.
    gains = weights * np.clip(rows, 0.0, None)
    tie_break = 1e-6 * rows[0]
    picked: list[int] = []
    available = np.ones(len(candidates), dtype=bool)
    for _ in range(min(count, len(candidates))):
        gain = gains.sum(axis=0)
        gain[~available] = -np.inf
        gain += tie_break
        best = int(np.argmax(gain))
        picked.append(best)
        available[best] = False
        for row in np.flatnonzero(rows[:, best] > covered):
            covered[row] = rows[row, best]
            gains[row] = weights[row] * np.clip(rows[row] - covered[row], 0.0, None)
    return candidates[np.asarray(picked, dtype=np.int64)]
