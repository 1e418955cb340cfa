"""The operator pages beyond the model admin, listed once.

The admin's header, its sidebar and its index page all show `OPERATOR_PAGES` (through the
`operator_pages` context processor and templates/admin/_operator_pages.html): a new page is one
more entry here, and it appears in all three places.
"""
from __future__ import annotations

from dataclasses import dataclass

from django.http import HttpRequest
from django.urls import reverse


@dataclass(frozen=True)
class OperatorPage:
    label: str
    url_name: str
    description: str


OPERATOR_PAGES: tuple[OperatorPage, ...] = (
    OperatorPage("Try a query", "try-query", "Route a query as an agent would, and see why each tool was chosen."),
    OperatorPage("Import / export", "catalog-import-admin", "Import tools from any supported format; download the catalog."),
    OperatorPage("Dashboard", "dashboard:overview", "Traffic, latency, tokens saved, and the queries to curate."),
    OperatorPage("Suggestions", "learning-suggestions",
                 "Queries from traffic proposed as hypothetical queries, with their evidence: accept or reject."),
    OperatorPage("Catalog doctor", "catalog-doctor",
                 "Tools the engine confuses, weak descriptions, duplicates, tools never offered."),
)


@dataclass(frozen=True)
class OperatorLink:
    label: str
    url: str
    description: str
    current: bool


def operator_pages(request: HttpRequest) -> dict[str, list[OperatorLink]]:
    """Context processor: the pages, with their URLs and whether the request is on one of them."""
    user = getattr(request, "user", None)
    if user is None or not user.is_active or not user.is_staff:
        return {"operator_pages": []}
    links = []
    for page in OPERATOR_PAGES:
        url = reverse(page.url_name)
        links.append(OperatorLink(page.label, url, page.description, request.path.startswith(url)))
    return {"operator_pages": links}
