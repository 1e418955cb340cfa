"""Adaptive mode: how many tools to send follows the scores.

A clear winner goes alone; a close field goes together. A ranked tool is kept while its score
is at least `(1 - margin)` times the best score of the request, so the rule is relative to
the best and does not depend on where the score scale puts an absolute cut (the scale may be
recalibrated without retuning it). Floor: the best tool is always kept (`ADAPTIVE_FLOOR`).
Cap: never more than the request's `limit`.

Default margin 0.15. On the demo catalog (calibrated), "play some jazz" scores play_music 0.75
and the next music tools 0.42 and below: play_music goes alone, where top-k would add four weak
ones. `margin=0` keeps only the best and its ties; `margin=1` keeps everything up to `limit`
(top-k).
"""
from __future__ import annotations

from collections.abc import Sequence

DEFAULT_MARGIN = 0.15
ADAPTIVE_FLOOR = 1


def keep_count(scores: Sequence[float], margin: float | None, limit: int) -> int:
    """How many of the ranked `scores` (best first) adaptive mode keeps."""
    if not scores:
        return 0
    margin = DEFAULT_MARGIN if margin is None else margin
    cut = (1.0 - margin) * float(scores[0])
    kept = sum(1 for s in scores[:limit] if float(s) >= cut)
    return max(min(ADAPTIVE_FLOOR, limit), min(kept, limit))
