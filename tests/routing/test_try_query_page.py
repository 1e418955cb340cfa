import html
import json
import re

import pytest

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("demo_catalog")]


def _page(client, **params) -> str:
    response = client.get("/admin/try-query/", params)
    assert response.status_code == 200
    return response.content.decode()


def _section(page: str, element_id: str) -> str:
    """From the element with this id to the next module of the page."""
    start = page.index(f'id="{element_id}"')
    end = page.find('<div class="module"', start)
    return page[start:end if end > 0 else None]


def test_try_a_query_shows_ranked_tools_explanation_guidance_and_tokens(admin_client_logged_in) -> None:
    page = _page(admin_client_logged_in, query="find an image for the hero section", strategy="hybrid", mode="top_k",
                 limit=5, format="openai", include_core="on")
    assert "cms_searchImages" in page
    assert "Semantic" in page and "Guidance" in page and "saved" in page


def test_numbered_lists_in_hints_are_rendered_as_lists(admin_client_logged_in) -> None:
    # The demo's music hint is "**Music workflow**" and "1. ..." lines with no blank line between.
    page = _page(admin_client_logged_in, query="play some jazz", strategy="bm25", limit=3, format="openai")
    guidance = _section(page, "guidance")
    assert "<strong>Music workflow</strong>" in guidance
    assert re.search(r"<ol>\s*<li>Use search_music", guidance)


def test_the_definitions_are_shown_as_the_client_receives_them_in_the_chosen_format(admin_client_logged_in) -> None:
    for fmt, key in (("openai", '"function"'), ("anthropic", '"input_schema"'), ("mcp", '"inputSchema"')):
        page = _page(admin_client_logged_in, query="play some jazz", strategy="bm25", limit=2, format=fmt)
        definitions = html.unescape(_section(page, "definitions"))
        assert key in definitions, fmt
        shown = json.loads(definitions[definitions.index("<pre"):].split(">", 1)[1].split("</pre>")[0])
        assert len(shown) >= 2  # the ranked tools (and the core tools)
    names = _page(admin_client_logged_in, query="play some jazz", strategy="bm25", limit=2, format="names")
    assert '"play_music"' in html.unescape(_section(names, "definitions"))


def test_hierarchical_steps_read_as_steps_not_python_dicts(admin_client_logged_in) -> None:
    page = _page(admin_client_logged_in, query="play some jazz", strategy="hierarchical", limit=3, format="names")
    steps = _section(page, "steps")
    assert "{&#x27;step" not in page and "{'step" not in page
    assert "LLM chooses categories" in steps and "skipped" in steps  # no LLM configured in tests
    assert "Embedding similarity to categories" in steps and "music" in steps


def test_a_field_error_is_shown_once(admin_client_logged_in) -> None:
    page = _page(admin_client_logged_in, query="", strategy="auto", mode="top_k", limit=5, format="openai")
    assert page.count("This field is required.") == 1


def test_a_link_with_only_a_query_uses_the_defaults(admin_client_logged_in) -> None:
    page = _page(admin_client_logged_in, query="play some jazz")
    assert "play_music" in page and "This field is required." not in page


def test_the_gate_matched_words_and_the_semantic_alternatives_are_shown(admin_client_logged_in) -> None:
    page = _page(admin_client_logged_in, query="play some jazz music", strategy="auto", limit=3, format="names",
                 include_core="on", compare="on")
    gate = _section(page, "gate")
    assert "auto: lexical confidence" in gate and ("fast-path bar" in gate or "no fast path" in gate)
    tools = _section(page, "tools")
    body = tools[tools.index("<tbody>"):]
    first_row = body[:body.index("</tr>")]
    assert "play_music" in first_row and "music" in first_row and "jazz" in first_row  # its matched words
    comparison = _section(page, "comparison")
    assert ">vector <" in comparison and ">hybrid <" in comparison
    assert comparison.count("<tr>") >= 3


def test_try_a_query_needs_staff(client) -> None:
    response = client.get("/admin/try-query/", {"query": "x"})
    assert response.status_code == 302 and "/admin/login/" in response["Location"]


def test_markup_in_a_query_is_shown_as_text(admin_client_logged_in) -> None:
    response = admin_client_logged_in.get("/admin/try-query/", {
        "query": "<script>alert(1)</script>", "strategy": "bm25", "mode": "top_k", "limit": 5, "format": "openai"})
    assert response.status_code == 200
    page = response.content.decode()
    assert "<script>alert(1)</script>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page  # the query is shown back, as text
