"""Two imports of the same new document at once (a double click on Import, two API clients):
both finish, and the second reads what the first wrote instead of failing on a unique name."""
import threading

from django.db import connection

from toolcatalog import services
from toolcatalog.models import Category, Tool

DOCUMENT = {
    "format": "toolcatalog/v1",
    "categories": [{"name": f"area_{i}", "description": f"Area {i}."} for i in range(5)],
    "tools": [{"name": f"tool_{i}", "description": f"Does thing {i}.", "category": f"area_{i % 5}"} for i in range(20)],
}


def test_two_imports_at_once_both_finish(transactional_db) -> None:
    start = threading.Barrier(2)
    reports: list[dict] = []
    errors: list[BaseException] = []

    def run() -> None:
        try:
            start.wait()
            reports.append(services.import_any(DOCUMENT).copy())
        except BaseException as exc:  # noqa: BLE001 - the test reports whatever the import raised
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=run) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert errors == []
    assert sorted(r["counts"]["created"] for r in reports) == [0, 25]
    assert Category.objects.filter(name__startswith="area_").count() == 5
    assert Tool.objects.filter(name__startswith="tool_").count() == 20
