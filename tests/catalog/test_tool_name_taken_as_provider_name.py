"""OpenAI and Anthropic call `files.read_file` `files__read_file`. A new tool literally named
`files__read_file` would take that spelling (a name they accept keeps itself) and every agent
calling `files__read_file` would silently reach it: creating or renaming a tool to a name another
tool already answers to is refused, by every door, with the tool named; nothing changes."""
import html
import re

import pytest
from django.test import Client
from rest_framework.test import APIClient

from tests.support.catalog import api_client
from toolcatalog import services
from toolcatalog.models import Tool

pytestmark = pytest.mark.django_db

DOTTED = "files.read_file"
PROVIDER = "files__read_file"
REASON = f"{PROVIDER} is how OpenAI and Anthropic see the tool {DOTTED}; pick another name"
INLINE_EMPTY = {"hypothetical_queries-TOTAL_FORMS": "0", "hypothetical_queries-INITIAL_FORMS": "0"}


@pytest.fixture
def dotted() -> Tool:
    return services.save_validated(Tool(name=DOTTED, description="Read a file from disk"))


@pytest.fixture
def curator() -> APIClient:
    return api_client(["catalog"], name="curator")


def openai_names() -> dict[str, str]:
    """The tools of the catalog's OpenAI export: provider name -> description."""
    exported = services.export(format="openai")
    assert isinstance(exported, list)
    return {tool["function"]["name"]: tool["function"]["description"] for tool in exported}


def still_files_read_file() -> None:
    assert openai_names() == {PROVIDER: "Read a file from disk"}


def form_errors(page: str) -> list[str]:
    return [html.unescape(item) for item in re.findall(r'<ul class="errorlist[^"]*"[^>]*>(.*?)</ul>', page, re.S)]


def tool_form(name: str, description: str) -> dict[str, str]:
    return {"name": name, "description": description, "parameters": "{}", "enabled": "on", **INLINE_EMPTY}


def test_the_api_refuses_to_create_it(dotted: Tool, curator: APIClient) -> None:
    response = curator.post("/api/v1/tools", {"name": PROVIDER, "description": "Another reader"}, format="json")
    assert response.status_code == 400
    body = response.json()
    assert body["error"] == "invalid_request" and REASON in body["message"]
    assert len(body["details"]["name"]) == 1 and REASON in body["details"]["name"][0]
    still_files_read_file()


def test_the_api_refuses_to_rename_a_tool_to_it(dotted: Tool, curator: APIClient) -> None:
    services.save_validated(Tool(name="play_music", description="Play a song"))
    response = curator.patch("/api/v1/tools/play_music", {"name": PROVIDER}, format="json")
    assert response.status_code == 400 and REASON in response.json()["details"]["name"][0]
    assert Tool.objects.filter(name="play_music").exists()
    assert openai_names() == {PROVIDER: "Read a file from disk", "play_music": "Play a song"}


def test_a_tool_may_take_the_name_it_already_answers_to(dotted: Tool, curator: APIClient) -> None:
    response = curator.patch(f"/api/v1/tools/{DOTTED}", {"name": PROVIDER}, format="json")
    assert response.status_code == 200, response.content
    still_files_read_file()


def test_the_admin_refuses_to_add_it(dotted: Tool, admin_client_logged_in: Client) -> None:
    response = admin_client_logged_in.post("/admin/toolcatalog/tool/add/", tool_form(PROVIDER, "Another reader"))
    assert response.status_code == 200  # the form again, with its error
    errors = form_errors(response.content.decode())
    assert len(errors) == 1 and REASON in errors[0]
    still_files_read_file()


def test_the_admin_refuses_to_rename_a_tool_to_it(dotted: Tool, admin_client_logged_in: Client) -> None:
    music = services.save_validated(Tool(name="play_music", description="Play a song"))
    response = admin_client_logged_in.post(f"/admin/toolcatalog/tool/{music.pk}/change/",
                                           tool_form(PROVIDER, "Play a song"))
    assert response.status_code == 200
    assert REASON in " ".join(form_errors(response.content.decode()))
    assert Tool.objects.get(pk=music.pk).name == "play_music"


def test_an_import_refuses_it_in_its_report(dotted: Tool) -> None:
    """Through the door the API, the admin and `import_catalog` use: a toolcatalog/v1 document
    carries catalog names, so its `files__read_file` is a new tool, not `files.read_file` updated."""
    report = services.import_any({"format": "toolcatalog/v1", "categories": [], "tools": [
        {"name": "play_music", "description": "Play a song"},
        {"name": PROVIDER, "description": "Another reader"},
    ]})
    assert report["created"] == ["play_music"] and report["updated"] == []
    assert [(r["index"], r["name"]) for r in report["rejected"]] == [("1", PROVIDER)]
    assert REASON in report["rejected"][0]["reason"]
    assert openai_names() == {PROVIDER: "Read a file from disk", "play_music": "Play a song"}


def test_adding_the_dotted_name_beside_the_plain_one_is_allowed(curator: APIClient) -> None:
    """The new dotted tool is the one that gets a hashed name: no existing tool's name changes."""
    services.save_validated(Tool(name=PROVIDER, description="Read a file"))
    response = curator.post("/api/v1/tools", {"name": DOTTED, "description": "Read a file from disk"}, format="json")
    assert response.status_code == 201, response.content
    names = openai_names()
    assert names[PROVIDER] == "Read a file" and len(names) == 2


def test_a_catalog_holding_both_still_edits_and_reimports_its_own_export(curator: APIClient) -> None:
    """Both created by one import into an empty catalog: nobody was calling either yet."""
    report = services.import_catalog({"format": "toolcatalog/v1", "categories": [], "tools": [
        {"name": DOTTED, "description": "Read a file from disk"},
        {"name": PROVIDER, "description": "Read a file"},
    ]})
    assert sorted(report.created) == [DOTTED, PROVIDER] and not report.rejected
    edited = curator.patch(f"/api/v1/tools/{PROVIDER}", {"description": "Read a whole file"}, format="json")
    assert edited.status_code == 200, edited.content
    for fmt in ("toolcatalog/v1", "openai"):
        again = services.import_any(services.export(format=fmt))
        assert again["counts"]["rejected"] == 0 and sorted(again["unchanged"]) == [DOTTED, PROVIDER], (fmt, again)
