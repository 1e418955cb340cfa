"""The admin and dashboard pages an operator uses, as (screenshot name, path): the overflow tests check each."""


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
