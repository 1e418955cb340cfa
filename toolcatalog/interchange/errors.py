"""Error and rejection types shared by every converter."""

from __future__ import annotations

from dataclasses import dataclass


class InterchangeError(ValueError):
    """The whole document cannot be imported (wrong shape, unknown format, ...).

    ``message`` is written for a person: it says what was expected and what
    was found, so the API can hand it straight back to the user.
    """

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


@dataclass(frozen=True)
class Rejection:
    """One entry that was skipped while the rest of the document imported.

    ``index`` is the entry's position in its source list (or the operation's
    position for OpenAPI), ``name`` whatever name it had (may be empty),
    ``kind`` is "tool" or "category".
    """

    index: int
    name: str
    reason: str
    kind: str = "tool"

    def __str__(self) -> str:
        label = f"{self.kind} #{self.index}"
        if self.name:
            label += f" '{self.name}'"
        return f"{label}: {self.reason}"
