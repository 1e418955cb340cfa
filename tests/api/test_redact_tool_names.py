from routing.services import HIDDEN_TOOL, redact_tool_names


def test_whole_names_are_replaced_anywhere_in_the_answer() -> None:
    hidden = frozenset({"geocode_address", "files.read_file"})
    answer = {"guidance": "Use geocode_address. Then files.read_file, not geocode_address_v2.",
              "tools": [{"function": {"description": "see geocode_address"}}], "score": 0.5}
    redacted = redact_tool_names(answer, hidden)
    assert redacted["guidance"] == f"Use {HIDDEN_TOOL}. Then {HIDDEN_TOOL}, not geocode_address_v2."
    assert redacted["tools"][0]["function"]["description"] == f"see {HIDDEN_TOOL}"
    assert redacted["score"] == 0.5


def test_nothing_hidden_leaves_text_alone() -> None:
    assert redact_tool_names("use geocode_address", frozenset()) == "use geocode_address"
