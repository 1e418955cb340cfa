"""Shared data for the engine tests: a small hand-made catalog and a deterministic
"concept" embedder (each dimension is a topic, words vote for topics), so that
semantic behaviour is testable without loading a model."""
from __future__ import annotations

import re
from collections.abc import Callable, Sequence

import numpy as np
import pytest

from engine import (
    CatalogSnapshot,
    CategoryEntry,
    RoutingIndex,
    ToolEntry,
    build_index,
    category_embedding_text,
    tool_embedding_text,
)

CONCEPTS: dict[str, tuple[str, ...]] = {
    "music": ("music", "song", "songs", "jazz", "tune", "tunes", "playlist", "album", "albums", "artist", "artists"),
    "weather": ("weather", "forecast", "rain", "temperature", "sunny", "umbrella"),
    "email": ("email", "mail", "send", "message", "messages", "inbox", "recipient"),
    "chart": ("chart", "graph", "plot", "visualize", "diagram"),
    "podcast": ("podcast", "episode", "episodes", "show"),
    "user": ("ask", "user", "question", "clarify", "clarifying"),
}
DIM = len(CONCEPTS)
_WORD_TO_DIM = {w: i for i, words in enumerate(CONCEPTS.values()) for w in words}


def concept_embed(text: str) -> np.ndarray:
    vec = np.zeros(DIM, dtype=np.float32)
    for word in re.findall(r"[a-z]+", text.lower()):
        if word in _WORD_TO_DIM:
            vec[_WORD_TO_DIM[word]] += 1.0
    if not vec.any():
        vec[:] = 1.0
    return vec / np.linalg.norm(vec)


MEDIA_HINT = "**Media workflow**: check the user's subscription first."
MUSIC_HINT = "**Music workflow**: search before you play."
SHARED_HINT = "**Office workflow**: confirm before sending anything."

CATEGORIES = (
    CategoryEntry("media", "Audio and video media", ("media",), MEDIA_HINT),
    CategoryEntry("music", "Play music, search songs, artist info", ("song", "album"), MUSIC_HINT, parent="media"),
    CategoryEntry("weather", "Weather forecasts", ("weather", "forecast"), ""),
    CategoryEntry("email", "Read and send email", ("email", "inbox"), SHARED_HINT),
    CategoryEntry("charts", "Draw charts", ("chart", "graph"), SHARED_HINT),
)

PARAMS = {"type": "object", "properties": {"query": {"type": "string", "description": "What to look for"}},
          "required": ["query"]}

TOOLS = (
    ToolEntry("play_music", "Play a song or playlist", "music", PARAMS,
              usage_hint="Returns a track id; follow with get_artist_info.", related_tools=("search_music",),
              hypothetical_queries=("put on some jazz", "play my favourite tune")),
    ToolEntry("search_music", "Search songs, albums and artists in the music library", "music", PARAMS),
    ToolEntry("get_artist_info", "Get information about an artist", "music", PARAMS, related_tools=("play_music",)),
    ToolEntry("podcast.play", "Play a podcast episode", "media", PARAMS),
    ToolEntry("get_weather", "Get the current weather and the forecast for a city", "weather", PARAMS,
              usage_hint="Temperatures are in Celsius."),
    ToolEntry("send_email", "Send an email message to a recipient", "email", PARAMS, related_tools=("list_inbox",)),
    ToolEntry("list_inbox", "List the messages in the email inbox", "email", PARAMS),
    ToolEntry("make_chart", "Create a chart or graph from data", "charts", PARAMS),
    ToolEntry("ask_user", "Ask the user a clarifying question", None, PARAMS, core=True),
)


def make_snapshot(tools: tuple[ToolEntry, ...] = TOOLS, categories: tuple[CategoryEntry, ...] = CATEGORIES,
                  embed: Callable[[str], np.ndarray] = concept_embed) -> CatalogSnapshot:
    tool_vectors = {t.name: embed(tool_embedding_text(t.name, t.description, t.category, t.parameters))
                    for t in tools}
    query_vectors = {t.name: np.stack([embed(q) for q in t.hypothetical_queries])
                     for t in tools if t.hypothetical_queries}
    category_vectors = {c.name: embed(category_embedding_text(c.name, c.description, c.keywords))
                        for c in categories}
    return CatalogSnapshot("test-1", tools, categories, tool_vectors, query_vectors, category_vectors, "concepts")


class CountingEmbedder:
    """The concept embedder as the engine calls it (texts in, rows out), recording each call's texts."""

    def __init__(self) -> None:
        self.calls: list[list[str]] = []

    def __call__(self, texts: Sequence[str]) -> np.ndarray:
        self.calls.append(list(texts))
        return np.stack([concept_embed(t) for t in texts])


@pytest.fixture(autouse=True)
def fresh_routing_index() -> None:
    """Overrides tests/conftest.py's autouse reset of the Django live index:
    the engine tests run without Django (`-p no:django`) and have no live index."""
    return None


@pytest.fixture(scope="session")
def index() -> RoutingIndex:
    return build_index(make_snapshot())


@pytest.fixture()
def embed() -> CountingEmbedder:
    return CountingEmbedder()


@pytest.fixture(scope="session")
def make_index() -> Callable[..., RoutingIndex]:
    """Build an index of other tools/categories with the same concept vectors."""
    def _make(tools: tuple[ToolEntry, ...] = TOOLS, categories: tuple[CategoryEntry, ...] = CATEGORIES) -> RoutingIndex:
        return build_index(make_snapshot(tools, categories))
    return _make
