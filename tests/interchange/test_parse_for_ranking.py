"""`parse_catalog(..., for_ranking=True)`, as `manage.py evaluate` reads a benchmark's file: every
tool that has a name is kept, repaired where the catalog would refuse it, and the import itself
(without the flag) still refuses the same entries."""
from toolcatalog.interchange import parse_catalog

DOCUMENT = {
    "format": "toolcatalog/v1",
    "tools": [
        {"name": "___", "description": "only underscores"},
        {"name": "Send Message", "description": "chat"},
        {"name": "Send_Message", "description": "letter"},
        {"name": "flags", "description": "wrong types", "core": "yes", "tags": 5},
        {"name": "bfcl", "description": "BFCL schema",
         "parameters": {"type": "dict", "properties": {"x": {"type": "float", "description": "an x"}}}},
        {"description": "no name at all"},
    ],
}


def test_every_named_tool_is_kept_for_ranking_under_a_name_that_leads_back_to_the_file() -> None:
    parsed = parse_catalog(DOCUMENT, for_ranking=True)
    names = [t["name"] for t in parsed.tools]
    assert len(names) == 5 and len(set(names)) == 5
    back = [parsed.renamed.get(n, n) for n in names]
    assert back == ["___", "Send Message", "Send_Message", "flags", "bfcl"]
    assert names[0].startswith("tool_") and names[2].startswith("Send_Message_")
    assert [r.reason for r in parsed.rejected] == ["missing name"]


def test_repairs_take_defaults_and_bfcl_types_and_say_so_in_the_order_of_the_fields() -> None:
    parsed = parse_catalog(DOCUMENT, for_ranking=True)
    flags = next(t for t in parsed.tools if t["name"] == "flags")
    assert flags["core"] is False and flags["tags"] == []
    bfcl = next(t for t in parsed.tools if t["name"] == "bfcl")
    assert bfcl["parameters"]["type"] == "object"
    assert bfcl["parameters"]["properties"]["x"] == {"type": "number", "description": "an x"}
    flag_notes = [w for w in parsed.warnings if w.startswith("tool 'flags'")]
    assert flag_notes == ["tool 'flags' ranked with the default core: core must be true or false, found a string",
                          "tool 'flags' ranked with the default tags: tags must be a list of strings"]


def test_the_import_still_refuses_what_only_ranking_repairs() -> None:
    parsed = parse_catalog(DOCUMENT)
    assert [t["name"] for t in parsed.tools] == ["Send_Message"]
    assert len(parsed.rejected) == 5


def test_a_name_the_file_repeats_is_a_duplicate_even_when_another_spelling_holds_its_clean_name() -> None:
    for names in (["Send_Message", "Send Message", "Send Message"], ["Send Message", "Send_Message", "Send_Message"]):
        parsed = parse_catalog({"format": "toolcatalog/v1", "tools": [{"name": n, "description": "x"} for n in names]},
                               for_ranking=True)
        kept = [t["name"] for t in parsed.tools]
        assert len(kept) == len(set(kept)) == 2
        assert sorted(parsed.renamed.get(n, n) for n in kept) == ["Send Message", "Send_Message"]
        assert [r.index for r in parsed.rejected] == [2] and "duplicate name" in parsed.rejected[0].reason


def test_a_schema_whose_dialect_is_not_a_uri_is_refused_not_a_crash() -> None:
    document = {"format": "toolcatalog/v1",
                "tools": [{"name": "odd", "description": "x", "parameters": {"$schema": True, "type": "object"}}]}
    assert "$schema must be a URI string" in parse_catalog(document).rejected[0].reason
    ranked = parse_catalog(document, for_ranking=True)
    assert ranked.tools[0]["parameters"] == {"type": "object", "properties": {}}
