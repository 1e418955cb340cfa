"""bench/robustness.py's perturbations: each changes only what it names, the same way every run, and
keeps the answers findable (an opaque name is the expected tool's new name)."""
from __future__ import annotations

import copy

from bench.robustness import PERTURBATIONS, SHORT_WORDS, opaque_name

DOCUMENT = {
    "format": "toolcatalog/v1",
    "categories": [],
    "tools": [
        {"name": "weather.get_forecast", "description": "Get the weather forecast for a city for the next seven days.",
         "related_tools": ["weather.get_alerts"]},
        {"name": "weather.get_alerts", "description": "Severe weather alerts for a region."},
    ],
}
QUERIES = [{"query": "Could you please tell me whether tomorrow brings thunderstorms around Lisbon?",
            "expected": ["weather.get_forecast"]}]


def run(name: str) -> tuple[dict, list[dict]]:
    return PERTURBATIONS[name](DOCUMENT, QUERIES)


def test_no_perturbation_changes_its_input():
    document, queries = copy.deepcopy(DOCUMENT), copy.deepcopy(QUERIES)
    for perturb in PERTURBATIONS.values():
        perturb(document, queries)
    assert document == DOCUMENT and queries == QUERIES


def test_opaque_renames_tools_answers_and_related_tools_alike():
    document, queries = run("opaque")
    names = [t["name"] for t in document["tools"]]
    assert names == [opaque_name("weather.get_forecast"), opaque_name("weather.get_alerts")]
    assert all(n.startswith("fn_") and "weather" not in n for n in names)
    assert queries[0]["expected"] == [names[0]]
    assert document["tools"][0]["related_tools"] == [names[1]]


def test_short_keeps_the_first_words_of_each_description():
    document, queries = run("short")
    assert document["tools"][0]["description"] == "Get the weather forecast for a"
    assert all(len(t["description"].split()) <= SHORT_WORDS for t in document["tools"])
    assert queries == QUERIES


def test_boiler_puts_one_sentence_before_every_description():
    document, _ = run("boiler")
    prefixes = {t["description"][: -len(o["description"])] for t, o in zip(document["tools"], DOCUMENT["tools"])}
    assert len(prefixes) == 1 and prefixes.pop().strip()


def test_typos_swap_letters_the_same_way_every_run():
    _, first = run("typo")
    _, second = run("typo")
    assert first == second
    changed, original = first[0]["query"].split(), QUERIES[0]["query"].split()
    assert len(changed) == len(original) and changed != original
    assert all(sorted(a) == sorted(b) for a, b in zip(changed, original))  # the same letters, swapped


def test_keyword_requests_keep_content_words_only():
    document, queries = run("keyword")
    assert queries[0]["query"] == "whether tomorrow brings thunderstorms around lisbon"
    assert document == DOCUMENT


def test_paired_joins_requests_for_different_tools_into_one_sentence():
    queries = [{"query": "Will it rain in Lisbon tomorrow?", "expected": ["weather.get_forecast"]},
               {"query": "Any storm warnings for the Algarve?", "expected": ["weather.get_alerts"]},
               {"query": "Forecast and warnings for Porto", "expected": ["weather.get_forecast", "weather.get_alerts"]}]
    document, pairs = PERTURBATIONS["paired"](DOCUMENT, queries)
    assert document == DOCUMENT
    assert len(pairs) == 1  # the two one-tool requests; the two-tool one is left out
    assert pairs[0]["query"].count(", and ") == 1 and "?," not in pairs[0]["query"]
    assert sorted(pairs[0]["expected"]) == ["weather.get_alerts", "weather.get_forecast"]
    assert pairs == PERTURBATIONS["paired"](DOCUMENT, queries)[1]  # the same pairs every run


def test_paired_never_pairs_two_requests_for_the_same_tool():
    queries = [{"query": f"Will it rain in city {i}?", "expected": ["weather.get_forecast"]} for i in range(6)]
    assert PERTURBATIONS["paired"](DOCUMENT, queries)[1] == []
