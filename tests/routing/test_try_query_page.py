import pytest

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("demo_catalog")]


def test_try_a_query_shows_ranked_tools_explanation_guidance_and_tokens(admin_client_logged_in) -> None:
    response = admin_client_logged_in.get("/admin/try-query/", {
        "query": "find an image for the hero section", "strategy": "hybrid", "mode": "top_k", "limit": 5,
        "format": "openai", "include_core": "on"})
    assert response.status_code == 200
    page = response.content.decode()
    assert "cms_searchImages" in page
    assert "semantic" in page and "Guidance" in page and "saved" in page
    assert "<strong>Image" in page or "<ol>" in page  # the workflow hint's Markdown is rendered


def test_try_a_query_needs_staff(client) -> None:
    response = client.get("/admin/try-query/", {"query": "x"})
    assert response.status_code == 302 and "/admin/login/" in response["Location"]


def test_markup_in_a_query_is_shown_as_text(admin_client_logged_in) -> None:
    response = admin_client_logged_in.get("/admin/try-query/", {
        "query": "<script>alert(1)</script>", "strategy": "bm25", "mode": "top_k", "limit": 5, "format": "openai"})
    assert b"<script>alert(1)</script>" not in response.content
