"""`manage.py import_catalog --mcp-stdio / --mcp-url`: a live server's tools/list is imported,
each server's name becoming its tools' category and namespace."""
from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from toolcatalog.models import Category, Tool
from toolrouter.devservices import free_port, wait_for_port

pytestmark = pytest.mark.django_db
SERVER = Path(__file__).resolve().parents[1] / "support" / "mcp_tool_server.py"


def stdio(name: str) -> str:
    return f"{sys.executable} {SERVER} {name} stdio"


def run(*args: str) -> str:
    out, err = io.StringIO(), io.StringIO()
    call_command("import_catalog", *args, stdout=out, stderr=err)
    return out.getvalue() + err.getvalue()


def test_two_stdio_servers_become_two_namespaced_categories() -> None:
    printed = run("--mcp-stdio", stdio("notes"), "--mcp-stdio", stdio("calendar"))
    assert '"created": 6' in printed and "notes: 2 tools" in printed  # 4 tools, 2 categories
    tools = dict(Tool.objects.values_list("name", "category__name"))
    assert tools == {"notes.search": "notes", "create_note": "notes", "calendar.search": "calendar",
                     "get_event": "calendar"}
    assert Category.objects.get(name="notes").workflow_hint == "Use notes's search before its other tool."
    assert Tool.objects.get(name="create_note").parameters["required"] == ["title", "body"]


@pytest.fixture
def http_server() -> str:
    port = free_port()
    process = subprocess.Popen([sys.executable, str(SERVER), "calendar", "http", str(port)],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_for_port(port)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        process.wait(timeout=10)


def test_a_streamable_http_server_with_a_server_name(http_server) -> None:
    printed = run("--mcp-url", http_server, "--server-name", "team-calendar", "--dry-run")
    assert '"created": 3' in printed and not Tool.objects.exists()
    run("--mcp-url", http_server, "--server-name", "team-calendar")
    assert set(Tool.objects.values_list("name", "category__name")) == {("search", "team-calendar"),
                                                                     ("get_event", "team-calendar")}


def test_a_server_that_does_not_answer_in_time_is_a_clear_error() -> None:
    silent = f"{sys.executable} -c 'import time; time.sleep(30)'"
    with pytest.raises(CommandError, match="did not answer tools/list within 2 s"):
        run("--mcp-stdio", silent, "--timeout", "2")
    with pytest.raises(CommandError, match="Give a FILE, or --mcp-stdio"):
        run()
    assert not Tool.objects.exists()
