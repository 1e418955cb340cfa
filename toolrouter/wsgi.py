import gc
import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "toolrouter.settings")
application = get_wsgi_application()

# Load every view now, not on the first request, then take what is loaded (~175,000 objects that
# live as long as the process) out of the cyclic GC's reach: a full collection walked them every
# few thousand requests, a 100-180 ms pause of the worker on this machine; about 10 ms once they
# are frozen. Reference counting still frees them; collecting first freezes no garbage.
import toolrouter.urls  # noqa: E402,F401
from usage.services import exit_through_exit_hooks_on_sigterm  # noqa: E402

# A web server that leaves SIGTERM at its default (runserver --noreload, a bare WSGI server) would
# die with the usage records this process holds while Redis is down. Here, not in an app's
# ready(): pytest, Celery and management commands load Django too and keep their own SIGTERM.
exit_through_exit_hooks_on_sigterm()

gc.collect()
gc.freeze()
