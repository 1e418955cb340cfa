"""The admin and dashboard pages an operator uses, as (screenshot name, path), and the walk over
them that both overflow tests make."""
from typing import Any

from playwright.sync_api import Page

from tests.support.browser import OverflowResult, check_overflow, screenshot

# Folded finding lists (the catalog doctor folds more than 12) are checked open.
OPEN_FOLDED_LISTS = "document.querySelectorAll('details').forEach(details => { details.open = true; })"


def operator_pages(tool_id: int, category_id: int) -> list[tuple[str, str]]:
    return [
        ("dashboard", "/dashboard/?range=7d"),
        ("admin-index", "/admin/"),
        ("tool-list", "/admin/toolcatalog/tool/"),
        ("tool-add", "/admin/toolcatalog/tool/add/"),
        ("tool-change", f"/admin/toolcatalog/tool/{tool_id}/change/"),
        ("category-change", f"/admin/toolcatalog/category/{category_id}/change/"),
        ("api-key-add", "/admin/api/apikey/add/"),
        ("import", "/admin/catalog-import/"),
        ("try-query", "/admin/try-query/?query=how+do+I+say+thank+you+in+French&strategy=auto&mode=top_k&limit=5"
                      "&format=openai&include_core=on&compare=on"),
        ("suggestions", "/admin/suggestions/"),
        ("catalog-doctor", "/admin/catalog-doctor/"),
    ]


def check_every_page(page: Page, base_url: str, pages: list[tuple[str, str]], width: int,
                     import_file: Any, shots: str = "") -> list[OverflowResult]:
    """Each page's overflow check and screenshot, then the import page once more with a preview of
    `import_file` (its report is the widest table the page shows)."""
    results = []
    for name, path in pages:
        page.goto(f"{base_url}{path}")
        page.wait_for_load_state("networkidle")  # the tool form's preview comes by fetch
        page.evaluate(OPEN_FOLDED_LISTS)
        results.append(check_overflow(page, name, width))
        screenshot(page, f"{shots}{name}", width)
    page.goto(f"{base_url}/admin/catalog-import/")
    page.set_input_files("input[name=file]", import_file)
    page.click("button[value=preview]")
    page.wait_for_selector("#import-report")
    results.append(check_overflow(page, "import-preview", width))
    screenshot(page, f"{shots}import-preview", width)
    return results
