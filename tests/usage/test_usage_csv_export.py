import csv
import io
from datetime import timedelta

import pytest
from django.utils import timezone

from usage import services as usage

from .records import make_record

pytestmark = [pytest.mark.django_db]


def _export(client, range_key: str) -> list[dict]:
    response = client.get("/dashboard/export.csv", {"range": range_key})
    assert response.status_code == 200 and response.streaming
    assert response["Content-Type"].startswith("text/csv")
    assert "attachment" in response["Content-Disposition"]
    return list(csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode())))


def test_the_export_holds_the_rows_of_the_range_only(staff_client) -> None:
    now = timezone.now()
    usage.record_request(make_record(request_id="recent", created_at=now - timedelta(hours=2)))
    usage.record_request(make_record(request_id="older", created_at=now - timedelta(days=3)))
    usage.drain_request_buffer()
    assert [row["request_id"] for row in _export(staff_client, "24h")] == ["recent"]
    rows = _export(staff_client, "7d")
    assert [row["request_id"] for row in rows] == ["older", "recent"]
    assert rows[0]["query"] == "play some jazz" and rows[0]["strategy_class"] == "fast"
    assert '"name": "play_music"' in rows[0]["results"]


def test_cells_that_a_spreadsheet_would_run_as_formulas_are_defused(staff_client) -> None:
    usage.record_request(make_record(request_id="formula", query="=HYPERLINK(\"http://evil\")"))
    usage.drain_request_buffer()
    assert _export(staff_client, "24h")[0]["query"].startswith("'=")


def test_the_export_needs_staff(client) -> None:
    assert client.get("/dashboard/export.csv").status_code == 302


def test_an_export_of_a_range_it_cannot_read_says_why_instead_of_another_range(staff_client) -> None:
    usage.record_request(make_record(request_id="recent"))
    usage.drain_request_buffer()
    response = staff_client.get("/dashboard/export.csv", {"range": "custom", "start": "2026-13-40", "end": "2026-01-01"})
    assert response.status_code == 400 and not response.streaming
    assert response.content.decode().startswith("Nothing exported: start:")
