"""A patched index (engine.incremental) is the index a full build of the same catalog gives.

Each step changes the catalog the way the admin does (edit, add, disable, rename, a category's
text, a tool losing its vector while it is re-embedded, a toolset change that moves only the
version), patches the previous index, builds the same catalog from scratch, and compares the
two part by part: tools, BM25 scores per term and tool, idf, vectors, query rows, category
vectors, token counts, and the answers to a set of queries.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field, replace

import numpy as np
import pytest
from conftest import CATEGORIES, TOOLS, concept_embed

from engine import CatalogSnapshot, CategoryEntry, RoutingIndex, ToolEntry, build_index
from engine.incremental import CatalogChanges, PatchedIndex, PatchNotPossible, apply_changes
from engine.texts import tool_embedding_text
from tests.support.indexes import assert_same_index


def _json_parameters(tool: ToolEntry) -> ToolEntry:
    return replace(tool, parameters=json.dumps(tool.schema()))  # as the database loader gives them


def _generated(i: int) -> ToolEntry:
    params = {"type": "object", "properties": {"x": {"type": "string", "description": f"input {i % 7}"}}}
    return ToolEntry(f"svc{i % 5}.tool_{i}", f"Does task number {i} for service {i % 5}",
                     ("email", "weather", None)[i % 3], json.dumps(params))


@dataclass
class Catalog:
    """The catalog as the database holds it: tools with their vectors, categories."""

    tools: dict[str, ToolEntry] = field(default_factory=dict)
    vectors: dict[str, np.ndarray] = field(default_factory=dict)
    categories: tuple[CategoryEntry, ...] = CATEGORIES
    version: int = 1

    def put(self, tool: ToolEntry, embedded: bool = True) -> None:
        self.tools[tool.name] = tool
        self.vectors.pop(tool.name, None)
        if embedded:
            self.vectors[tool.name] = concept_embed(
                tool_embedding_text(tool.name, tool.description, tool.category, tool.schema()))

    def query_vectors(self, names) -> dict[str, np.ndarray]:
        return {n: np.stack([concept_embed(q) for q in self.tools[n].hypothetical_queries])
                for n in names if self.tools[n].hypothetical_queries and n in self.vectors}

    def category_vectors(self) -> dict[str, np.ndarray]:
        return {c.name: concept_embed(f"{c.name} {c.description}") for c in self.categories}

    def snapshot(self) -> CatalogSnapshot:
        return CatalogSnapshot(str(self.version), tuple(self.tools.values()), self.categories, dict(self.vectors),
                               self.query_vectors(self.tools), self.category_vectors(), "concepts")

    def changes(self, changed: set[str], removed: set[str], categories_changed: bool = False) -> CatalogChanges:
        self.version += 1
        tools = tuple(self.tools[n] for n in sorted(changed))
        return CatalogChanges(str(self.version), tools, frozenset(removed),
                              {n: self.vectors[n] for n in changed if n in self.vectors},
                              self.query_vectors(changed), self.categories, self.category_vectors(), categories_changed)


@pytest.fixture()
def catalog() -> Catalog:
    catalog = Catalog()
    for tool in (*TOOLS, *(_generated(i) for i in range(60))):
        catalog.put(_json_parameters(tool))
    return catalog


def _step(previous: RoutingIndex, catalog: Catalog, changes: CatalogChanges) -> RoutingIndex:
    patched = apply_changes(previous, changes)
    assert_same_index(patched, build_index(catalog.snapshot()),
                      embed_texts=lambda texts: np.stack([concept_embed(t) for t in texts]))
    return patched


def test_edits_adds_disables_renames_and_category_text_patch_to_the_full_index(catalog: Catalog) -> None:
    index = build_index(catalog.snapshot())
    # warm the token counts, as served requests do, so the patch has counts to carry over
    index.token_total(("all",), np.ones(len(index), dtype=bool), "openai")

    edited = replace(catalog.tools["get_weather"], description="Weather forecast and rain radar for a city")
    catalog.put(edited)
    index = _step(index, catalog, catalog.changes({"get_weather"}, set()))
    assert isinstance(index, PatchedIndex)

    catalog.put(ToolEntry("book_kayak", "Book a kayak rental on the lake", "weather", "{}",
                          hypothetical_queries=("rent a kayak", "kayak on sunday")))
    catalog.put(ToolEntry("tune_violin", "Tune a violin", None, "{}"), embedded=False)  # not embedded yet
    index = _step(index, catalog, catalog.changes({"book_kayak", "tune_violin"}, set()))

    del catalog.tools["list_inbox"]  # disabled
    catalog.vectors.pop("list_inbox")
    send_email = catalog.tools["send_email"]
    assert send_email.related_tools == ("list_inbox",)
    catalog.tools["send_email"] = replace(send_email, related_tools=())  # its related list follows
    index = _step(index, catalog, catalog.changes({"send_email"}, {"list_inbox"}))

    renamed = replace(catalog.tools.pop("svc3.tool_3"), name="svc3.tool_3_renamed")
    catalog.put(renamed)
    catalog.vectors.pop("svc3.tool_3", None)
    index = _step(index, catalog, catalog.changes({renamed.name}, {"svc3.tool_3"}))

    catalog.categories = tuple(replace(c, description="Rain, snow and storm warnings") if c.name == "weather" else c
                               for c in catalog.categories)
    index = _step(index, catalog, catalog.changes(set(), set(), categories_changed=True))

    catalog.vectors.pop("play_music")  # edited: pending until the worker embeds it again
    catalog.tools["play_music"] = replace(catalog.tools["play_music"], usage_hint="Returns a track id.")
    index = _step(index, catalog, catalog.changes({"play_music"}, set()))
    catalog.put(catalog.tools["play_music"])
    index = _step(index, catalog, catalog.changes({"play_music"}, set()))


def test_a_change_that_moves_only_the_version_shares_the_index(catalog: Catalog) -> None:
    index = build_index(catalog.snapshot())
    patched = apply_changes(index, catalog.changes(set(), set()))
    assert patched.version == str(catalog.version) and index.version != patched.version
    assert patched.lexical is index.lexical and patched.vectors is index.vectors


def test_a_vector_that_lands_shares_the_bm25_and_patches_the_vector(catalog: Catalog) -> None:
    catalog.put(replace(catalog.tools["play_music"], description="Play a song or a playlist"), embedded=False)
    index = build_index(catalog.snapshot())
    catalog.put(replace(catalog.tools["get_weather"], description="Rain radar"))
    index = _step(index, catalog, catalog.changes({"get_weather"}, set()))
    catalog.put(catalog.tools["play_music"])  # the worker embedded the edited text: same entry, a vector
    patched = _step(index, catalog, catalog.changes({"play_music"}, set()))
    assert patched.lexical is index.lexical
    at = patched.position["play_music"]
    assert patched.vectors.has_vector[at] and not index.vectors.has_vector[at]


def test_a_patch_that_would_empty_the_catalog_asks_for_a_full_build(catalog: Catalog) -> None:
    index = build_index(catalog.snapshot())
    with pytest.raises(PatchNotPossible):
        apply_changes(index, catalog.changes(set(), set(catalog.tools)))
