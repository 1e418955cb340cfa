"""The admin's frame: its name, and the operator pages reachable from every admin page."""
import re

import pytest

from toolrouter.operator_pages import OPERATOR_PAGES

pytestmark = pytest.mark.django_db

PAGES = ["/admin/", "/admin/toolcatalog/tool/", "/admin/toolcatalog/tool/add/", "/admin/api/apikey/add/",
         "/admin/try-query/", "/admin/catalog-import/", "/dashboard/"]


@pytest.mark.parametrize("path", PAGES)
def test_every_page_is_branded_and_links_the_operator_pages_in_its_header(admin_client_logged_in, path) -> None:
    page = admin_client_logged_in.get(path).content.decode()
    assert ">toolrouter administration</a>" in page and "Django administration" not in page
    header = page[page.index('<header id="header">'):page.index("</header>")]
    for link in ("/admin/try-query/", "/admin/catalog-import/", "/dashboard/"):
        assert f'href="{link}"' in header
    assert "View site" not in page


@pytest.mark.parametrize("path", ["/admin/toolcatalog/tool/", "/admin/try-query/"])
def test_the_sidebar_lists_the_operator_pages_first(admin_client_logged_in, path) -> None:
    page = admin_client_logged_in.get(path).content.decode()
    sidebar = page[page.index('<nav class="sticky" id="nav-sidebar"'):]
    sidebar = sidebar[:sidebar.index("</nav>")]
    assert sidebar.index("Try a query") < sidebar.index("Tool catalog")
    assert len(re.findall(r'<tr class="operator-page', sidebar)) == len(OPERATOR_PAGES)


def test_the_current_operator_page_is_marked(admin_client_logged_in) -> None:
    page = admin_client_logged_in.get("/admin/catalog-import/").content.decode()
    assert '<a href="/admin/catalog-import/" aria-current="page">Import / export</a>' in page


def test_the_index_describes_each_operator_page(admin_client_logged_in) -> None:
    page = admin_client_logged_in.get("/admin/").content.decode()
    for operator_page in OPERATOR_PAGES:
        assert operator_page.description in page
