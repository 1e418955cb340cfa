"""Nothing buffered is lost when a worker or a web process stops cleanly."""
import os
import subprocess
import sys

import pytest

from tests.support import worker as worker_support
from tests.support.worker import PROJECT_DIR, celery_worker, wait_for
from usage import services as usage
from usage.models import RequestLog
from usage.tasks import drain_request_log

from .records import make_record

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_drain_task_empties_the_buffer_on_a_real_worker() -> None:
    with celery_worker():
        for i in range(50):
            usage.record_request(make_record(request_id=f"task-{i}"))
        drain_request_log.delay()
        assert wait_for(lambda: RequestLog.objects.count() == 50)


def test_a_clean_worker_shutdown_drains_what_beat_has_not_yet_taken() -> None:
    with celery_worker() as worker:
        for i in range(2500):
            usage.record_request(make_record(request_id=f"shutdown-{i}"))
        assert RequestLog.objects.count() == 0
    assert worker.returncode == 0
    assert RequestLog.objects.count() == 2500


SCRIPT = """
import django
django.setup()
from usage import services as usage
from tests.usage.records import make_record
for i in range(7):
    usage.record_request(make_record(request_id=f"exit-{i}"))
assert usage.usage_health()["buffered_in_process"] == 7
"""


def test_a_web_process_writes_its_in_process_buffer_at_exit() -> None:
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "toolrouter.settings", "DATABASE_URL": worker_support.worker_database_url(),
           "REDIS_URL": "redis://127.0.0.1:1/0"}  # Redis down: the records wait in the process
    subprocess.run([sys.executable, "-c", SCRIPT], cwd=PROJECT_DIR, env=env, check=True, timeout=60)
    assert RequestLog.objects.filter(request_id__startswith="exit-").count() == 7
