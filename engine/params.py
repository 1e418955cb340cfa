"""The ranking's tunable weights, and the defaults used before a catalog has been calibrated.

Each catalog gets its own `RankingParams` from `calibration.calibrate` (run in the background
per catalog version, and by `evaluate` on its throw-away catalog), chosen on evidence the
catalog itself has: its hypothetical queries (each held out of its own tool in turn) and
queries its traffic confirmed. A catalog without such evidence is ranked with `DEFAULT_PARAMS`.

The defaults were chosen to be safe on every kind of catalog we could measure, not best on
one: they are the values whose worst recall@5 over the three dev sets (API-style functions,
chatty requests over one-line plugin descriptions, multi-tool requests over a two-level
catalog of 4,000 tools) was highest; BENCHMARKS.md has the table. A weight fitted to one
catalog is what `calibrate` is for.

The lexical weight went from 0.2 to 0.1 with the local model's adaptation to tool routing
(toolcatalog/local_model_adapt.py), whose cosines need less help from BM25: worst recall@5 over
the dev sets 0.881 -> 0.889 (plugins-dev; 0.05 to 0.125 measured alike), and over the robustness
battery's 18 runs 0.792 -> 0.807 (plugins-dev with 6-word descriptions). It costs seal-dev, whose
requests use its tools' words, 0.957 -> 0.951, still 0.2 above both baselines.

Measured again when a tool's name came to head its description (engine/texts.py): the worst
recall@5 over the dev sets is 0.896 at W 0.05, 0.893 at 0.1, 0.891 at 0.15 and 0.889 at 0.2
(plugins-dev each time), within five of its 1,500 requests; 0.05 costs seal-dev 0.953 -> 0.948
and bfcl-dev 0.949 -> 0.946, so W stays 0.1.

Why a catalog without evidence does not get its W from how often BM25 and the vectors agree on its
requests (measured on the 18 catalogs of the robustness battery: each dev set as it is and with
five perturbations). The best W does differ by catalog: 0.05 to 0.1 on plugins-dev's six, 0.1 to
0.2 on bfcl-dev's, 0.2 to 0.5 on seal-dev's (seal-dev itself at 0.3: recall@5 0.953 -> 0.956,
recall@10 0.976 -> 0.981). The share of the five first tools BM25 and the vectors have in common
orders the three sets (plugins-dev 0.27 to 0.33, bfcl-dev 0.47 to 0.53, seal-dev 0.51 to 0.57),
but seal-dev with typos (0.51) sits inside bfcl-dev's range, so a rule placed between them is a
line drawn through three data sets, which is fitting them, not evidence about a new catalog.
Raising W only for requests that split into three needs or more (task lists in the tools' own
words) moved seal-dev's recall@10 0.976 -> 0.979 and cost its curated split 0.001 at recall@5:
seal-dev is the only data set with such requests, so that too would be fitted to it. The
calibration's grid holds W 0.1 to 0.5, chosen on held-out labelled evidence once a catalog has it.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, fields, replace
from typing import Any, Literal

FoldMode = Literal["mean", "sum"]
FOLD_MODES: tuple[str, ...] = ("mean", "sum")


@dataclass(frozen=True, slots=True)
class RankingParams:
    """
    lexical_weight: hybrid = (semantic + lexical_weight * lexical_rel) / (1 + lexical_weight).
    query_fold / query_fold_mode: how a tool's hypothetical queries fold into its vector.
        "mean": tool + query_fold * unit(mean of its query vectors) - the queries count as one
        voice however many there are (curated examples that paraphrase each other);
        "sum": tool + query_fold * sum of its query vectors - every query is one more voice
        (real requests, each adding evidence).
    queries_field_weight: BM25 weight of the hypothetical-queries text field.
    category_weight: the semantic score adds this times the cosine of the query to the
        tool's category (its own vector), divided by (1 + category_weight).
    fast_path_confidence: `auto` answers from BM25 alone (no embedding) when its confidence
        gate reaches this; None: never (no evidence yet that BM25 alone is as good here).
    query_adapter_share: tools are scored against this share of the request's vector mapped by
        the catalog's query adapter (`adapter.py`), the rest the vector itself; 0: no adapter.
    """

    lexical_weight: float = 0.1
    query_fold: float = 1.0
    query_fold_mode: FoldMode = "sum"
    queries_field_weight: float = 0.1
    category_weight: float = 0.0
    fast_path_confidence: float | None = None
    query_adapter_share: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any] | None) -> RankingParams:
        """Known keys only: a stored calibration from an older release still loads."""
        if not data:
            return DEFAULT_PARAMS
        known = {f.name for f in fields(cls)}
        params = replace(DEFAULT_PARAMS, **{k: v for k, v in data.items() if k in known})
        if params.query_fold_mode not in FOLD_MODES:
            params = replace(params, query_fold_mode="mean")
        return params


DEFAULT_PARAMS = RankingParams()
