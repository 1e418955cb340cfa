"""select:NAME and select:/regex/ parsing, and the bounds on a pattern (pure engine)."""
from __future__ import annotations

from engine import adaptive, explicit

NAMES = ["files.read_file", "files.write_file", "get_weather", "get_weather_alerts", "send_email"]


def internal(written: str) -> str | None:
    return {"files__read_file": "files.read_file"}.get(written)


def test_names_are_taken_out_of_the_query() -> None:
    asked = explicit.parse("please select:get_weather,send_email then select:files__read_file summarise it")
    assert asked.names == ("get_weather", "send_email", "files__read_file")
    assert asked.rest == "please then summarise it"
    chosen = explicit.resolve(asked, NAMES, internal)
    assert chosen.names == ("get_weather", "send_email", "files.read_file") and chosen.notes == ()


def test_a_pattern_matches_names_in_name_order() -> None:
    chosen = explicit.resolve(explicit.parse(r"select:/^get_weather/"), NAMES, internal)
    assert chosen.names == ("get_weather", "get_weather_alerts")
    assert explicit.parse(r"select:/a\/b c/ rest").patterns == (r"a\/b c",)


def test_unknown_names_and_names_outside_the_candidates_read_the_same() -> None:
    chosen = explicit.resolve(explicit.parse("select:send_email,nope"), ["get_weather"], internal)
    assert chosen.names == () and chosen.notes == ("select:send_email matched no tool", "select:nope matched no tool")


def test_bad_long_and_slow_patterns_are_bounded() -> None:
    bad = explicit.resolve(explicit.parse("select:/([/"), NAMES, internal)
    assert bad.names == () and "not a valid regular expression" in bad.notes[0]
    long = explicit.parse("select:/" + "a" * (explicit.MAX_PATTERN_CHARS + 1) + "/")
    assert long.patterns == () and "at most" in long.notes[0]
    ticks = iter(range(0, 1000))  # a clock that moves 1 s per look: the budget ends at once
    slow = explicit.resolve(explicit.parse("select:/.*/"), NAMES, internal, clock=lambda: float(next(ticks)))
    assert "time budget" in slow.notes[0]


def test_many_matches_are_capped() -> None:
    names = [f"tool_{i:03}" for i in range(100)]
    chosen = explicit.resolve(explicit.parse("select:/tool_/"), names, internal)
    assert len(chosen.names) == explicit.MAX_PATTERN_MATCHES and chosen.names[0] == "tool_000"
    assert "more than" in chosen.notes[0]


def test_adaptive_keeps_what_scores_near_the_best_with_floor_and_cap() -> None:
    assert adaptive.keep_count([0.9, 0.85, 0.5, 0.4], None, 5) == 2
    assert adaptive.keep_count([0.9, 0.2], 0.0, 5) == 1  # floor: the best alone
    assert adaptive.keep_count([0.9, 0.89, 0.88, 0.87], 1.0, 3) == 3  # cap: the limit
    assert adaptive.keep_count([], None, 5) == 0
