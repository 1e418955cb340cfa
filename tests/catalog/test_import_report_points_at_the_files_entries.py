"""What an import reports names the file's own entries: the position of a refused tool in the
file, the repairs it made (on stderr from the command), and a server name it did not use."""
from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import call_command

from toolcatalog import services

pytestmark = pytest.mark.django_db


def test_a_refused_tools_index_is_its_place_in_the_file() -> None:
    tools = [{"type": "function", "function": {"name": f"tool_{i}", "description": "Does a thing."}} for i in range(4)]
    tools[1] = {"type": "function", "function": {"name": "no_description"}}  # the converter keeps it...
    tools[0]["function"]["parameters"] = "not a schema"  # ... after refusing this one itself
    tools[3]["function"]["description"] = "bad\u0000"  # the service refuses this one
    report = services.import_any(tools)
    indexes = {r["name"]: r["index"] for r in report["rejected"]}
    assert indexes["tool_3"] == "3"
    assert indexes["tool_0"] == "0"


def test_the_command_prints_every_warning(tmp_path) -> None:
    path = tmp_path / "tools.json"
    path.write_text(json.dumps([{"type": "function", "function": {"name": "Send Message", "description": "Send."}}]))
    err = StringIO()
    call_command("import_catalog", str(path), "--server-name", "chat", stdout=StringIO(), stderr=err)
    lines = err.getvalue().splitlines()
    assert "warning: tool 'Send Message' renamed to 'Send_Message' (illegal characters)" in lines
    assert any(line.startswith("warning: the server name 'chat' was not used") for line in lines)
