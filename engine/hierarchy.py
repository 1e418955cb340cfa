"""The category tree: parents, sub-categories, paths; and workflow guidance.

Categories form a forest through `CategoryEntry.parent`. A parent that is not
in the snapshot (disabled) or a cycle simply ends the path, so a bad admin edit
cannot hang a request.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence

from .types import CategoryEntry


class CategoryTree:
    def __init__(self, categories: Sequence[CategoryEntry]):
        self.by_name: dict[str, CategoryEntry] = {c.name: c for c in categories}
        self.children: dict[str, list[str]] = {name: [] for name in self.by_name}
        for cat in sorted(self.by_name.values(), key=lambda c: c.name):
            if cat.parent and cat.parent in self.by_name and cat.parent != cat.name:
                self.children[cat.parent].append(cat.name)
        self._paths: dict[str, tuple[str, ...]] = {name: self._path(name) for name in self.by_name}

    def _path(self, name: str) -> tuple[str, ...]:
        chain: list[str] = []
        current: str | None = name
        while current is not None and current in self.by_name and current not in chain:
            chain.append(current)
            current = self.by_name[current].parent
        return tuple(reversed(chain))

    def path(self, name: str | None) -> tuple[str, ...]:
        """Root-to-leaf names; () for None, (name,) for a category not in the tree."""
        if not name:
            return ()
        return self._paths.get(name, (name,))

    def subtree(self, names: Iterable[str]) -> set[str]:
        """The named categories and all their sub-categories (unknown names are kept as given)."""
        result: set[str] = set()
        stack = list(names)
        while stack:
            name = stack.pop()
            if name in result:
                continue
            result.add(name)
            stack.extend(self.children.get(name, ()))
        return result

    def guidance(self, tool_categories: Sequence[str | None]) -> str:
        """Workflow hints for the categories of the returned tools, most relevant first.

        Order: the best match's category, then its parents (specific before
        general), then the next match's; every hint appears once even when
        several categories share the same text.
        """
        seen_categories: set[str] = set()
        seen_hints: set[str] = set()
        hints: list[str] = []
        for category in tool_categories:
            for name in reversed(self.path(category)):
                if name in seen_categories:
                    continue
                seen_categories.add(name)
                hint = self.by_name[name].workflow_hint.strip() if name in self.by_name else ""
                if hint and hint not in seen_hints:
                    seen_hints.add(hint)
                    hints.append(hint)
        return "\n\n".join(hints)
