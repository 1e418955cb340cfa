"""Provider-safe names: readable where possible, always valid, always mapped back."""

import pytest

from engine import PROVIDER_NAME_RE, NameMap, external_name, sanitize_name


@pytest.mark.parametrize("name", ["get_weather", "a-b_c", "x" * 64])
def test_valid_names_are_unchanged(name: str) -> None:
    assert external_name(name) == name


def test_dots_become_double_underscores() -> None:
    assert external_name("github.search_repositories") == "github__search_repositories"
    assert external_name("calendar.events.create") == "calendar__events__create"


def test_dotted_name_that_already_has_double_underscores_is_hashed() -> None:
    mapped = external_name("pkg__mod.func")
    assert PROVIDER_NAME_RE.match(mapped)
    assert mapped.startswith("pkg__mod_func_") and len(mapped) == len("pkg__mod_func_") + 8
    assert mapped != external_name("pkg__mod_func")


def test_long_names_are_cut_to_55_plus_hash() -> None:
    long = "ApplicationAnalyzeApi." + "get_correlated_traces_for_a_very_long_service_name" * 2
    mapped = external_name(long)
    assert len(mapped) == 64 and PROVIDER_NAME_RE.match(mapped)
    assert mapped[:55] == long.replace(".", "__")[:55] and mapped[55] == "_"
    assert external_name(long) == mapped  # deterministic
    assert external_name(long + "x") != mapped


def test_name_map_round_trips_every_name() -> None:
    names = ["play_music", "github.search", "pkg__mod.func", "a" * 70, "b." * 40 + "c", "x-y"]
    mapping = NameMap(names)
    externals = [mapping.external(n) for n in names]
    assert len(set(externals)) == len(names)
    assert all(PROVIDER_NAME_RE.match(e) for e in externals)
    assert [mapping.internal(e) for e in externals] == names


def test_collision_with_a_literal_name_is_resolved() -> None:
    mapping = NameMap(["a.b", "a__b"])
    assert mapping.external("a__b") == "a__b"  # the literal name keeps its spelling
    assert mapping.external("a.b") != "a__b"
    assert mapping.internal(mapping.external("a.b")) == "a.b"
    assert NameMap(["a__b", "a.b"]).items() == mapping.items()  # order does not matter


def test_unknown_external_names() -> None:
    mapping = NameMap(["github.search"])
    assert "github__search" in mapping and "nope" not in mapping
    assert mapping.get("nope") is None and mapping.get("nope", "nope") == "nope"
    with pytest.raises(KeyError):
        mapping.internal("nope")


@pytest.mark.parametrize("raw, expected", [
    ("List pets!", "List_pets"),
    ("repos/get-content", "repos_get-content"),
    ("  already.valid_name ", "already.valid_name"),
    ("_private", "_private"),
])
def test_sanitize_name(raw: str, expected: str) -> None:
    assert sanitize_name(raw) == expected
