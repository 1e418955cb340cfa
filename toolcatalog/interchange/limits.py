"""How much work one document may cost: nesting, size after expansion, YAML aliases, `$ref`s.

A small document can describe a huge one: YAML aliases ("billion laughs") and `$ref` fan-out
(each schema's properties pointing twice at the next) expand exponentially. Both are counted
while they expand and refused past these limits, before the work grows.
"""
from __future__ import annotations

from dataclasses import dataclass

from .errors import InterchangeError


@dataclass(frozen=True)
class DocumentLimits:
    max_depth: int = 64  # nesting of objects and lists
    max_nodes: int = 1_000_000  # values (objects, lists, scalars) after aliases and $refs are expanded
    max_yaml_aliases: int = 10_000  # YAML alias uses (`*name`)
    max_ref_expansions: int = 10_000  # `$ref`s expanded while making parameter schemas self-contained


class LimitExceeded(InterchangeError):
    """The document needs more work than `limit` (a DocumentLimits field) allows; nothing is imported."""

    def __init__(self, limit: str, allowed: int, message: str) -> None:
        super().__init__(message)
        self.limit = limit
        self.allowed = allowed

    @property
    def is_size(self) -> bool:
        """True for limits on how large the document is once expanded (a 413 for the caller)."""
        return self.limit != "max_depth"


class NodeBudget:
    """Counts values produced while expanding one document, against `max_nodes`."""

    def __init__(self, limits: DocumentLimits) -> None:
        self.limits = limits
        self.nodes = 0

    def spend(self, count: int = 1) -> None:
        self.nodes += count
        if self.nodes > self.limits.max_nodes:
            raise LimitExceeded("max_nodes", self.limits.max_nodes,
                                f"the document expands to more than {self.limits.max_nodes:,} values")
