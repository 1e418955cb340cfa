"""Settings, all from the environment, with defaults that are safe for a local run.

Production is `DJANGO_DEBUG=0`: it refuses to start without a real SECRET_KEY and
turns on secure cookies, HSTS and a strict ALLOWED_HOSTS.
"""
from __future__ import annotations

import os
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent
DATA_DIR = Path(os.environ.get("TOOLROUTER_DATA_DIR", BASE_DIR / ".data"))


def _read_services_env() -> dict[str, str]:
    """URLs of the embedded servers a running `make run` started (see devservices)."""
    path = DATA_DIR / "services.env"
    if not path.exists():
        return {}
    return dict(line.split("=", 1) for line in path.read_text().splitlines() if "=" in line)


def env(name: str, default: str = "") -> str:
    return os.environ.get(name, default)


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_float(name: str, default: float) -> float:
    value = os.environ.get(name)
    return float(value) if value else default


def env_int(name: str, default: int) -> int:
    value = os.environ.get(name)
    return int(value) if value else default


_embedded = _read_services_env()
DEV_SECRET_KEY = "dev-insecure-secret-key-do-not-use-in-production"

DEBUG = env_bool("DJANGO_DEBUG", True)
SECRET_KEY = env("DJANGO_SECRET_KEY", DEV_SECRET_KEY if DEBUG else "")
if not DEBUG and (not SECRET_KEY or SECRET_KEY == DEV_SECRET_KEY or len(SECRET_KEY) < 32):
    raise ImproperlyConfigured(
        "DJANGO_DEBUG is off but DJANGO_SECRET_KEY is missing, the development key, or shorter "
        "than 32 characters. Set a long random DJANGO_SECRET_KEY."
    )

ALLOWED_HOSTS = [h for h in env("DJANGO_ALLOWED_HOSTS", "127.0.0.1,localhost,[::1],testserver" if DEBUG else "").split(",") if h]
CSRF_TRUSTED_ORIGINS = [o for o in env("DJANGO_CSRF_TRUSTED_ORIGINS").split(",") if o]

if not DEBUG:
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_HSTS_SECONDS = env_int("DJANGO_HSTS_SECONDS", 31536000)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_CONTENT_TYPE_NOSNIFF = True
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_SSL_REDIRECT = env_bool("DJANGO_SSL_REDIRECT", True)

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    "toolcatalog",
    "usage",
    "routing",
    "api",
    "gateway",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "toolrouter.middleware.JsonApiErrorsMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "toolrouter.middleware.GetOnlySlashCommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "toolrouter.urls"
WSGI_APPLICATION = "toolrouter.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "toolrouter.operator_pages.operator_pages",
            ],
        },
    },
]

DATABASE_URL = env("DATABASE_URL") or _embedded.get("DATABASE_URL") or "postgres://postgres@127.0.0.1:5432/toolrouter"
DATABASES = {"default": dj_database_url.parse(DATABASE_URL, conn_max_age=env_int("DATABASE_CONN_MAX_AGE", 60))}
DATABASES["default"].setdefault("OPTIONS", {})["connect_timeout"] = env_int("DATABASE_CONNECT_TIMEOUT", 5)
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

REDIS_URL = env("REDIS_URL") or _embedded.get("REDIS_URL") or "redis://127.0.0.1:6379/0"
# pytest sets PYTEST_VERSION: tests (and the workers they start) use their own Redis
# database, so a `make run` worker beside them never takes a test's task.
TESTING = bool(os.environ.get("PYTEST_VERSION"))
if TESTING:
    REDIS_URL = REDIS_URL.rsplit("/", 1)[0] + "/" + env("TEST_REDIS_DB", "15")
# Short timeouts: a Redis outage must degrade a route, not hang it.
REDIS_SOCKET_TIMEOUT = env_float("REDIS_SOCKET_TIMEOUT", 0.5)

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = DATA_DIR / "static"
STATICFILES_DIRS = [BASE_DIR / "static"] if (BASE_DIR / "static").exists() else []

LOG_LEVEL = env("LOG_LEVEL", "INFO").upper()
# What a person watching `make run` needs: start-up, failing requests, embedding progress. Below
# DEBUG, runserver's line per answered request and Celery's lines per task and per beat tick (the
# usage drain runs every 2 s) are left out; warnings and errors (a failing request, a failing
# task) still show. Our periodic tasks log only when they do something.
CHATTY_LOGGERS = ("django.server", "celery.beat", "celery.worker.strategy", "celery.worker.request", "celery.app.trace")
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": LOG_LEVEL},
    "loggers": {
        "django": {"handlers": []},  # Django's own console handler would print each line twice
        "django.db.backends": {"level": "WARNING"},
        **{name: {"level": "WARNING"} for name in CHATTY_LOGGERS if LOG_LEVEL != "DEBUG"},
    },
}

# --- Celery: Redis is the broker; tasks are acknowledged late so a killed worker loses nothing.
CELERY_BROKER_URL = REDIS_URL
CELERY_RESULT_BACKEND = None
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_ALWAYS_EAGER = False
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# A frozen Redis (not a dead one, which refuses at once) held a catalog write's request for as long
# as it stayed frozen: sending the embedding task had no socket timeout. Now a send gives up after
# one retry and the row stays pending for the beat task to re-send.
CELERY_BROKER_SOCKET_TIMEOUT = env_float("CELERY_BROKER_SOCKET_TIMEOUT", 2.0)
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": env_int("CELERY_VISIBILITY_TIMEOUT", 600),
    "socket_timeout": CELERY_BROKER_SOCKET_TIMEOUT,
    "socket_connect_timeout": CELERY_BROKER_SOCKET_TIMEOUT,
}
CELERY_TASK_PUBLISH_RETRY_POLICY = {"max_retries": 1, "interval_start": 0, "interval_step": 0.5, "interval_max": 0.5}
WORKER_HEARTBEAT_SECONDS = env_float("WORKER_HEARTBEAT_SECONDS", 10.0)
WORKER_HEARTBEAT_STALE_SECONDS = env_float("WORKER_HEARTBEAT_STALE_SECONDS", 60.0)
CELERY_BEAT_SCHEDULE = {
    "requeue-stale-embeddings": {
        "task": "toolcatalog.tasks.requeue_stale_embeddings",
        "schedule": env_float("EMBEDDING_REQUEUE_SECONDS", 60.0),
    },
}

# --- Embeddings. One block chooses the provider; model and dimension are recorded per vector.
# An empty variable counts as unset (an .env line `EMBEDDING_MODEL=` must not name model "").
EMBEDDING_PROVIDER = env("EMBEDDING_PROVIDER") or "local"  # local | openai
# The local provider's models: "all-MiniLM-L6-v2-tools" (adapted to tool routing at install,
# toolcatalog/local_model_adapt.py) or "all-MiniLM-L6-v2" (the package as it is).
EMBEDDING_MODEL = env("EMBEDDING_MODEL") or (
    "all-MiniLM-L6-v2-tools" if EMBEDDING_PROVIDER == "local" else "text-embedding-3-small")
# The pgvector columns are created with this size by the first `migrate`.
EMBEDDING_DIMENSIONS = env_int("EMBEDDING_DIMENSIONS", 384)
# Whether the `openai` provider asks for EMBEDDING_DIMENSIONS (`dimensions`): "auto" does for
# text-embedding-3 models only (toolcatalog/embeddings.sends_dimensions), "true", "false".
EMBEDDING_SEND_DIMENSIONS = env("EMBEDDING_SEND_DIMENSIONS") or "auto"
EMBEDDING_BASE_URL = env("EMBEDDING_BASE_URL")  # OpenAI-compatible servers: Azure, Ollama, vLLM, TEI...
EMBEDDING_API_KEY = env("EMBEDDING_API_KEY") or env("OPENAI_API_KEY")
EMBEDDING_TIMEOUT_SECONDS = env_float("EMBEDDING_TIMEOUT_SECONDS", 10.0)
# Threads of the local model per process (ONNX Runtime; torch for the worker's bf16 batches); 0: one
# per core. EMBEDDING_TORCH_THREADS is its old name.
EMBEDDING_THREADS = env_int("EMBEDDING_THREADS", env_int("EMBEDDING_TORCH_THREADS", 0))
# The local model's precision on a request's path (queries): "auto" (int8 on a CPU with int8 dot
# products, else fp32: toolcatalog/local_model.query_variant_for), "int8" or "fp32".
EMBEDDING_LOCAL_QUERY_PRECISION = env("EMBEDDING_LOCAL_QUERY_PRECISION", "auto")
# The catalog's vectors (the worker): "auto" (bf16 in torch on a CPU with native bf16, else
# ONNX fp32), "bf16" or "fp32". See toolcatalog/local_model_torch.py.
EMBEDDING_LOCAL_CATALOG_PRECISION = env("EMBEDDING_LOCAL_CATALOG_PRECISION", "auto")
EMBEDDING_BATCH_SIZE = env_int("EMBEDDING_BATCH_SIZE", 64)
EMBEDDING_MAX_RETRIES = env_int("EMBEDDING_MAX_RETRIES", 5)
EMBEDDING_RETRY_BACKOFF_SECONDS = env_float("EMBEDDING_RETRY_BACKOFF_SECONDS", 2.0)

REST_FRAMEWORK = {
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_PARSER_CLASSES": ["api.parsers.LimitedJSONParser"],
    "DEFAULT_AUTHENTICATION_CLASSES": ["api.auth.BearerKeyAuthentication"],
    "DEFAULT_PERMISSION_CLASSES": ["api.auth.HasScope"],
    "EXCEPTION_HANDLER": "api.errors.api_exception_handler",
    "DEFAULT_THROTTLE_CLASSES": ["api.throttling.ApiKeyRateThrottle"],
    "UNAUTHENTICATED_USER": None,
    # `?format=` names a tool format (openai, anthropic...), not a DRF renderer; /api/schema/ reads
    # its own `?format=json|yaml` (api/schema.py SchemaFormatNegotiation).
    "URL_FORMAT_OVERRIDE": None,
}

# --- API limits: past each, a clear 4xx JSON error.
API_MAX_BODY_BYTES = env_int("API_MAX_BODY_BYTES", 1_000_000)
API_MAX_JSON_DEPTH = env_int("API_MAX_JSON_DEPTH", 32)
API_MAX_QUERY_CHARS = env_int("API_MAX_QUERY_CHARS", 4000)
DATA_UPLOAD_MAX_MEMORY_SIZE = max(API_MAX_BODY_BYTES * 2, 2_621_440)
SPECTACULAR_SETTINGS = {
    "TITLE": "toolrouter API",
    "DESCRIPTION": "Returns the few tools each agent request needs, with their workflow guidance.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    # Request components apart from answers: read-only fields are not required in a request (and are
    # declared readOnly by api/schema.py, so a fetched object sent back whole is still valid).
    "COMPONENT_SPLIT_REQUEST": True,
    # Answer components list the fields always present; request components what the server refuses
    # (unknown fields, bad names), and 429/503 answers their Retry-After header.
    "POSTPROCESSING_HOOKS": ["drf_spectacular.hooks.postprocess_schema_enums",
                             "api.schema.require_complete_answers",
                             "api.schema.declare_what_requests_may_hold"],
}

LOGIN_URL = "admin:login"

# --- Routing.
ROUTE_EMBEDDING_TIMEOUT_SECONDS = env_float("ROUTE_EMBEDDING_TIMEOUT_SECONDS", 1.0)
ROUTE_EMBEDDING_FAILURES_TO_OPEN = env_int("ROUTE_EMBEDDING_FAILURES_TO_OPEN", 3)
ROUTE_EMBEDDING_COOLDOWN_SECONDS = env_float("ROUTE_EMBEDDING_COOLDOWN_SECONDS", 30.0)
QUERY_EMBEDDING_CACHE_SECONDS = env_int("QUERY_EMBEDDING_CACHE_SECONDS", 7 * 24 * 3600)
SESSION_TTL_SECONDS = env_int("SESSION_TTL_SECONDS", 3600)
SESSION_MAX_TOOLS = env_int("SESSION_MAX_TOOLS", 50)
ROUTE_DEFAULT_CATEGORY = env("ROUTE_DEFAULT_CATEGORY") or None
# The hierarchical strategy's first step: an LLM picks categories when a chat model is configured.
CATEGORY_LLM_BASE_URL = env("CATEGORY_LLM_BASE_URL")
CATEGORY_LLM_API_KEY = env("CATEGORY_LLM_API_KEY") or env("OPENAI_API_KEY")
CATEGORY_LLM_MODEL = env("CATEGORY_LLM_MODEL")
CATEGORY_LLM_TIMEOUT_SECONDS = env_float("CATEGORY_LLM_TIMEOUT_SECONDS", 2.0)
ROUTE_DEFAULT_THRESHOLD = env_float("ROUTE_DEFAULT_THRESHOLD", 0.5)

# --- Usage analytics (usage/services.py): the request log is buffered in Redis and written in
# batches; raw rows are pruned after a retention period, daily rollups stay for the dashboard.
from celery.schedules import crontab  # noqa: E402 - kept beside the only schedule that needs it

USAGE_QUERY_STORAGE = env("USAGE_QUERY_STORAGE", "store")  # store | hash | drop
if USAGE_QUERY_STORAGE not in {"store", "hash", "drop"}:
    raise ImproperlyConfigured("USAGE_QUERY_STORAGE must be 'store', 'hash' or 'drop'.")
USAGE_RETENTION_DAYS = max(2, env_int("USAGE_RETENTION_DAYS", 30))  # the 24 h view reads raw rows
USAGE_LOW_CONFIDENCE = env_float("USAGE_LOW_CONFIDENCE", 0.3)  # below it, a query joins the curation list
USAGE_DRAIN_SECONDS = env_float("USAGE_DRAIN_SECONDS", 2.0)
USAGE_LOCAL_BUFFER_MAX = env_int("USAGE_LOCAL_BUFFER_MAX", 10_000)  # in-process, while Redis is down
USAGE_LOCAL_FLUSH_BATCH = env_int("USAGE_LOCAL_FLUSH_BATCH", 100)
USAGE_REDIS_RETRY_SECONDS = env_float("USAGE_REDIS_RETRY_SECONDS", 5.0)
CELERY_BEAT_SCHEDULE["usage-drain-request-log"] = {
    "task": "usage.tasks.drain_request_log",
    "schedule": USAGE_DRAIN_SECONDS,
    "options": {"expires": max(10.0, USAGE_DRAIN_SECONDS * 5)},  # no pile-up while workers are down
}
# --- Ranking calibration (routing/calibration.py): per catalog version, in the background.
CALIBRATION_CHECK_SECONDS = env_float("CALIBRATION_CHECK_SECONDS", 60.0)
CALIBRATION_QUIET_SECONDS = env_float("CALIBRATION_QUIET_SECONDS", 30.0)  # after the last catalog change
CALIBRATION_MAX_CONFIRMED = env_int("CALIBRATION_MAX_CONFIRMED", 2000)  # newest confirmed queries used
CELERY_BEAT_SCHEDULE["calibrate-ranking"] = {
    "task": "routing.tasks.calibrate_ranking_if_due",
    "schedule": CALIBRATION_CHECK_SECONDS,
    "options": {"expires": max(10.0, CALIBRATION_CHECK_SECONDS)},
}
CELERY_BEAT_SCHEDULE["usage-prune-and-roll-up"] = {
    "task": "usage.tasks.prune_and_roll_up_usage",
    # Shortly after midnight UTC; a missed run only means the dashboard reads more raw rows.
    "schedule": crontab(hour=0, minute=10),
}

# --- Learning from traffic (usage/suggestions.py, routing/doctor.py). A logged query with feedback
# (the proxy's reading of the answer, or POST /api/v1/feedback) is proposed as a hypothetical query
# of the tool it needed: at once when that tool was not offered or ranked past LEARNING_LOW_RANK,
# after LEARNING_MIN_CONFIRMATIONS requests when it was offered high and used.
LEARNING_LOW_RANK = env_int("LEARNING_LOW_RANK", 3)
LEARNING_MIN_CONFIRMATIONS = env_int("LEARNING_MIN_CONFIRMATIONS", 2)
LEARNING_MIN_MISSES = env_int("LEARNING_MIN_MISSES", 1)
# Weak matches (low confidence or no result, no feedback): the likely tools are proposed after this many requests.
LEARNING_MIN_WEAK_REQUESTS = env_int("LEARNING_MIN_WEAK_REQUESTS", 1)
# Automatic mode (off by default): accept suggestions with this much evidence, at most this many per tool.
LEARNING_AUTO_ACCEPT = env_bool("LEARNING_AUTO_ACCEPT", False)
LEARNING_AUTO_MIN_REQUESTS = env_int("LEARNING_AUTO_MIN_REQUESTS", 5)
LEARNING_AUTO_MIN_CLIENTS = env_int("LEARNING_AUTO_MIN_CLIENTS", 2)
LEARNING_AUTO_MAX_PER_TOOL = env_int("LEARNING_AUTO_MAX_PER_TOOL", 10)
LEARNING_REFRESH_SECONDS = env_float("LEARNING_REFRESH_SECONDS", 600.0)
# The catalog doctor: tool pairs at least this similar are "confusable"; at most this many
# hypothetical queries are routed per check.
DOCTOR_SIMILARITY = env_float("DOCTOR_SIMILARITY", 0.85)
DOCTOR_MAX_QUERIES = env_int("DOCTOR_MAX_QUERIES", 5000)
DOCTOR_CHECK_SECONDS = env_float("DOCTOR_CHECK_SECONDS", 900.0)
CELERY_BEAT_SCHEDULE["learning-refresh-suggestions"] = {
    "task": "routing.tasks.refresh_suggestions",
    "schedule": LEARNING_REFRESH_SECONDS,
    "options": {"expires": LEARNING_REFRESH_SECONDS},
}
CELERY_BEAT_SCHEDULE["learning-check-catalog"] = {
    "task": "routing.tasks.check_catalog",
    "schedule": DOCTOR_CHECK_SECONDS,
    "options": {"expires": DOCTOR_CHECK_SECONDS},
}

# --- Interoperability (issue 7): the filter gateway (POST /api/v1/filter) and the
# OpenAI/Anthropic-compatible proxy (POST /v1/chat/completions, /v1/responses, /v1/messages).
LLM_MAX_BODY_BYTES = env_int("LLM_MAX_BODY_BYTES", 20_000_000)  # LLM requests carry whole conversations
LLM_MAX_JSON_DEPTH = env_int("LLM_MAX_JSON_DEPTH", 100)  # tool schemas nest deeper than API bodies
FILTER_MAX_LIMIT = env_int("FILTER_MAX_LIMIT", 128)
FILTER_INDEX_CACHE_SIZE = env_int("FILTER_INDEX_CACHE_SIZE", 64)  # distinct tool lists kept built per process
FILTER_TOOL_EMBEDDING_CACHE_SECONDS = env_int("FILTER_TOOL_EMBEDDING_CACHE_SECONDS", 30 * 24 * 3600)
PROXY_UPSTREAM_BASE_URL = env("PROXY_UPSTREAM_BASE_URL", "https://api.openai.com/v1")
PROXY_ANTHROPIC_UPSTREAM_BASE_URL = env("PROXY_ANTHROPIC_UPSTREAM_BASE_URL", "https://api.anthropic.com/v1")
# Used when the client's own credential headers carried our key (so it only changed base_url).
PROXY_UPSTREAM_API_KEY = env("PROXY_UPSTREAM_API_KEY")
PROXY_ANTHROPIC_UPSTREAM_API_KEY = env("PROXY_ANTHROPIC_UPSTREAM_API_KEY")
PROXY_CONNECT_TIMEOUT_SECONDS = env_float("PROXY_CONNECT_TIMEOUT_SECONDS", 5.0)
# Longest wait for the next bytes (non-streaming: the whole answer's first byte; streaming: each chunk).
PROXY_READ_TIMEOUT_SECONDS = env_float("PROXY_READ_TIMEOUT_SECONDS", 120.0)
PROXY_WRITE_TIMEOUT_SECONDS = env_float("PROXY_WRITE_TIMEOUT_SECONDS", 30.0)
# Deferred loading (gateway/deferred.py): most tool-search rounds the proxy serves in one turn,
# and how long it remembers a conversation's searches (to resend them byte for byte).
PROXY_TOOL_SEARCH_MAX_ROUNDS = env_int("PROXY_TOOL_SEARCH_MAX_ROUNDS", 4)
PROXY_TOOL_SEARCH_MEMORY_SECONDS = env_int("PROXY_TOOL_SEARCH_MEMORY_SECONDS", 86400)

# --- The MCP door (gateway/mcp_door.py): how long a session id holds, and which browser
# origins may call /mcp (comma-separated, "*" for any; clients that are not browsers send none).
MCP_SESSION_MAX_AGE_SECONDS = env_int("MCP_SESSION_MAX_AGE_SECONDS", 86400)
MCP_ALLOWED_ORIGINS = [o.strip() for o in env("MCP_ALLOWED_ORIGINS").split(",") if o.strip()]

# --- Throttling (issue 6, api/throttling.py): per API key, in Redis, over a sliding minute.
# A key's own `rate_per_minute` wins over the default. Past the rate: 429 with Retry-After.
API_RATE_PER_MINUTE = env_int("API_RATE_PER_MINUTE", 600)
# Redis unreachable: true lets requests through (counted, logged); false answers 503.
API_THROTTLE_FAIL_OPEN = env_bool("API_THROTTLE_FAIL_OPEN", True)
# After a Redis failure, how long throttling skips Redis (a hung server would cost every request a timeout).
API_THROTTLE_REDIS_RETRY_SECONDS = env_float("API_THROTTLE_REDIS_RETRY_SECONDS", 5.0)

# --- Bounded work per request (issue 13). Past each limit: a 4xx JSON error naming it (413 for size).
# Imports (every door: API, admin page, command): a small document must not expand into a huge one.
IMPORT_MAX_DEPTH = env_int("IMPORT_MAX_DEPTH", 64)  # nesting of a document sent as text (JSON or YAML)
IMPORT_MAX_NODES = env_int("IMPORT_MAX_NODES", 1_000_000)  # values once YAML aliases and $refs are expanded
IMPORT_MAX_YAML_ALIASES = env_int("IMPORT_MAX_YAML_ALIASES", 10_000)
IMPORT_MAX_REF_EXPANSIONS = env_int("IMPORT_MAX_REF_EXPANSIONS", 10_000)
# The filter gateway and the proxy: tools per request, and tool texts embedded on the request's
# thread; past that budget the request is ranked by BM25 and the rest embedded in the background.
FILTER_MAX_TOOLS = env_int("FILTER_MAX_TOOLS", 1_000)
FILTER_MAX_NEW_EMBEDDINGS = env_int("FILTER_MAX_NEW_EMBEDDINGS", 64)  # one embedding batch
FILTER_MAX_JSONPATH_CHARS = env_int("FILTER_MAX_JSONPATH_CHARS", 500)
# Catalog texts (tool and category descriptions, usage and workflow hints), in characters.
CATALOG_MAX_TEXT_CHARS = env_int("CATALOG_MAX_TEXT_CHARS", 10_000)
API_PAGE_SIZE = env_int("API_PAGE_SIZE", 100)  # catalog lists: default page, `?limit=` up to API_MAX_PAGE_SIZE
API_MAX_PAGE_SIZE = env_int("API_MAX_PAGE_SIZE", 1_000)
# Failed authentications (unknown or revoked keys) per client address and sliding minute; past it
# 429 with Retry-After, and no database read for an unknown key.
AUTH_FAILURES_PER_MINUTE = env_int("AUTH_FAILURES_PER_MINUTE", 30)
