"""A renamed tool's old name in usage hints and workflow hints becomes its new name: guidance
that names the old one sends agents to a tool that no longer exists."""
from toolcatalog import services
from toolcatalog.models import Category, Tool


def test_hints_that_name_a_renamed_tool_follow_it(db) -> None:
    web = services.save_validated(Category(name="web", description="Web search.",
                                           workflow_hint="1. Use search_google.\n2. Then open_page on a hit."))
    search = services.save_validated(Tool(name="search_google", description="Searches the web.", category=web))
    services.save_validated(Tool(name="open_page", description="Opens a page.", category=web,
                                 usage_hint="Only after search_google, not search_google_news."))
    services.save_validated(Tool(name="files.search_google", description="Not the same tool.",
                                 usage_hint="Unlike search_google, this one reads files.search_google's cache."))
    search.name = "web_search"
    services.save_validated(search)
    assert Category.objects.get(name="web").workflow_hint == "1. Use web_search.\n2. Then open_page on a hit."
    assert Tool.objects.get(name="open_page").usage_hint == "Only after web_search, not search_google_news."
    assert Tool.objects.get(name="files.search_google").usage_hint == \
        "Unlike web_search, this one reads files.search_google's cache."
