import os
import warnings

from celery import Celery
from celery.exceptions import SecurityWarning
from celery.signals import worker_ready

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "toolrouter.settings")

if os.environ.get("TOOLROUTER_ROOT_WORKER") == "1":
    # `make run` as root where no other user can run this Python (toolrouter/devservices.py): the
    # worker accepts JSON only, so the warning Celery prints at every start says nothing to act on.
    warnings.filterwarnings("ignore", message="You're running the worker with superuser privileges",
                            category=SecurityWarning)

app = Celery("toolrouter")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@worker_ready.connect
def _start_heartbeat(**kwargs: object) -> None:
    from toolrouter.worker_heartbeat import start_heartbeat  # needs Django's settings, set up by now

    start_heartbeat()
