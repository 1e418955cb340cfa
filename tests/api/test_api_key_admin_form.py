"""Creating and editing API keys in the admin: scopes as checkboxes, the filter gateway's paths on the form."""
import re

import pytest

from api.models import ApiKey
from api.services import hash_key

pytestmark = pytest.mark.django_db


def _create(client, **fields):
    data = {"name": "mobile-app", "scopes": ["route"], "filter_query_path": "", "filter_tools_path": "", **fields}
    return client.post("/admin/api/apikey/add/", data, follow=True)


def test_scopes_are_checkboxes_of_the_models_choices(admin_client_logged_in) -> None:
    page = admin_client_logged_in.get("/admin/api/apikey/add/").content.decode()
    boxes = re.findall(r'<input type="checkbox" name="scopes" value="(\w+)"[^>]*>', page)
    assert boxes == ["route", "catalog"]
    assert re.search(r'name="scopes" value="route"[^>]*checked', page)  # the default
    assert 'name="filter_query_path"' in page and 'name="filter_tools_path"' in page


def test_a_key_with_two_scopes_and_filter_paths_is_created_and_shown_once(admin_client_logged_in) -> None:
    response = _create(admin_client_logged_in, scopes=["route", "catalog"], rate_per_minute="120",
                       filter_query_path="$.messages[?role=='user'].content", filter_tools_path="$.request.tools")
    page = response.content.decode()
    raw_key = re.search(r"(tr_[A-Za-z0-9_\-]{20,})", page).group(1)
    key = ApiKey.objects.get(name="mobile-app")
    assert key.key_hash == hash_key(raw_key)
    assert (key.scopes, key.rate_per_minute) == (["route", "catalog"], 120)
    assert (key.filter_query_path, key.filter_tools_path) == ("$.messages[?role=='user'].content", "$.request.tools")
    assert "<td class=\"field-scope_list\">route, catalog</td>" in page


def test_a_key_needs_a_scope(admin_client_logged_in) -> None:
    page = _create(admin_client_logged_in, scopes=[]).content.decode()
    assert "Tick at least one scope." in page and not ApiKey.objects.exists()


def test_a_bad_jsonpath_is_refused_on_the_form(admin_client_logged_in) -> None:
    page = _create(admin_client_logged_in, filter_query_path="$.messages[").content.decode()
    assert "Not a valid JSONPath" in page and not ApiKey.objects.exists()


def test_empty_paths_are_stored_as_the_defaults(admin_client_logged_in) -> None:
    _create(admin_client_logged_in)
    key = ApiKey.objects.get(name="mobile-app")
    assert key.filter_query_path is None and key.filter_tools_path is None


def test_a_toolset_bound_key_cannot_have_the_catalog_scope(admin_client_logged_in) -> None:
    from toolcatalog.models import Toolset

    toolset = Toolset.objects.create(name="support")
    page = _create(admin_client_logged_in, scopes=["route", "catalog"], toolset=toolset.pk).content.decode()
    assert "cannot have the &#x27;catalog&#x27; scope" in page and not ApiKey.objects.exists()


def test_pinned_tools_and_mcp_options_are_on_the_form(admin_client_logged_in) -> None:
    from toolcatalog.models import Tool

    Tool.objects.create(name="ask_user_clarification", description="Ask")
    _create(admin_client_logged_in, pinned_tools="ask_user_clarification", mcp_core_tools="on")
    key = ApiKey.objects.get(name="mobile-app")
    assert key.pinned_tools == ["ask_user_clarification"] and key.mcp_core_tools and not key.mcp_namespaced_names
