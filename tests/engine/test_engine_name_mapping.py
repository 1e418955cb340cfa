from engine import PROVIDER_NAME_RE as VALID_EXTERNAL
from engine import NameMap, RouteRequest, ToolEntry, route

LONG = "vendor.service." + "very_long_segment." * 6 + "action"


def test_valid_names_are_kept() -> None:
    assert NameMap(["get_weather"]).external("get_weather", "openai") == "get_weather"


def test_dotted_and_long_names_round_trip() -> None:
    names = ["aws.lexv2_models.list_exports", LONG, "a.b", "a_b"]
    mapping = NameMap(names)
    for fmt in ("openai", "anthropic"):
        externals = [mapping.external(n, fmt) for n in names]
        assert all(VALID_EXTERNAL.match(e) for e in externals)
        assert len(set(externals)) == len(names)
        assert [mapping.internal(e) for e in externals] == names


def test_mcp_and_names_keep_the_real_name() -> None:
    mapping = NameMap([LONG])
    assert mapping.external(LONG, "mcp") == LONG and mapping.external(LONG, "names") == LONG


def test_rendered_definitions_use_the_external_name(make_index) -> None:
    index = make_index((ToolEntry("cms.get.page", "Get a page", None, {}),), ())
    request = RouteRequest(query="get page", strategy="bm25", format="anthropic")
    definition = route(index, request, embed_texts=None).tools[0]
    assert definition["name"] == index.external_name("cms.get.page", "anthropic") == "cms__get__page"
    assert index.internal_name(definition["name"]) == "cms.get.page"
    assert set(definition) == {"name", "description", "input_schema"}
