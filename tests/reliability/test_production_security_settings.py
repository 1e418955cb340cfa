"""Production (DJANGO_DEBUG=0) forces secure cookies, HSTS and a strict ALLOWED_HOSTS.

Each check runs Django in a subprocess with the production environment, as a deployment would.
(tests/catalog/test_production_settings.py covers the secret key.)
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

PROJECT_DIR = Path(__file__).resolve().parents[2]
SECRET = "Zq8#vLx2!pR7@mN4&tW9$kB3^hG6*yD1(eF5)uJ0_sC-aQ+iO.r2Vn7Kw"  # 50+ characters, as check --deploy wants
PRODUCTION = {"DJANGO_DEBUG": "0", "DJANGO_SECRET_KEY": SECRET, "DJANGO_ALLOWED_HOSTS": "router.example.com"}

PROBE = """
import json, django
django.setup()
from django.conf import settings
from django.test import Client
names = ["SESSION_COOKIE_SECURE", "CSRF_COOKIE_SECURE", "SECURE_HSTS_SECONDS", "SECURE_HSTS_INCLUDE_SUBDOMAINS",
         "SECURE_SSL_REDIRECT", "SECURE_CONTENT_TYPE_NOSNIFF", "ALLOWED_HOSTS", "DEBUG", "SESSION_COOKIE_HTTPONLY"]
out = {name: getattr(settings, name) for name in names}
client = Client()
https = {"HTTP_X_FORWARDED_PROTO": "https", "secure": True}
good = client.get("/healthz", HTTP_HOST="router.example.com", **https)
out["good_host"] = [good.status_code, good.headers.get("Strict-Transport-Security")]
out["bad_host"] = client.get("/healthz", HTTP_HOST="evil.example.net", **https).status_code
plain = client.get("/healthz", HTTP_HOST="router.example.com")
out["plain_http"] = [plain.status_code, plain.headers.get("Location")]
print(json.dumps(out))
"""


def production_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("DJANGO_")}
    return {**clean, **PRODUCTION, "DJANGO_SETTINGS_MODULE": "toolrouter.settings", **(extra or {})}


def probe(extra: dict[str, str] | None = None) -> dict:
    result = subprocess.run([sys.executable, "-c", PROBE], cwd=PROJECT_DIR, env=production_env(extra),
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


# HSTS preload is a commitment to the browsers' preload list: the operator's decision, not a default.
ACCEPTED_WARNINGS = {"security.W021"}


def test_check_deploy_raises_no_security_warning() -> None:
    result = subprocess.run([sys.executable, "manage.py", "check", "--deploy"],
                            cwd=PROJECT_DIR, env=production_env(), capture_output=True, text=True, timeout=120)
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    warnings = {word.strip("():") for word in output.split() if word.startswith("(security.")}
    assert warnings <= ACCEPTED_WARNINGS, output


def test_production_sets_secure_cookies_hsts_and_https() -> None:
    out = probe()
    assert out["DEBUG"] is False
    assert out["SESSION_COOKIE_SECURE"] and out["CSRF_COOKIE_SECURE"] and out["SESSION_COOKIE_HTTPONLY"]
    assert out["SECURE_HSTS_SECONDS"] >= 31536000 and out["SECURE_HSTS_INCLUDE_SUBDOMAINS"]
    assert out["SECURE_SSL_REDIRECT"] and out["SECURE_CONTENT_TYPE_NOSNIFF"]
    status, hsts = out["good_host"]
    assert status == 200 and hsts.startswith("max-age=31536000")
    assert out["plain_http"][0] == 301 and out["plain_http"][1].startswith("https://router.example.com/")


def test_production_answers_only_its_allowed_hosts() -> None:
    out = probe()
    assert out["ALLOWED_HOSTS"] == ["router.example.com"]
    assert out["bad_host"] == 400


def test_production_without_allowed_hosts_serves_no_host() -> None:
    out = probe({"DJANGO_ALLOWED_HOSTS": ""})
    assert out["ALLOWED_HOSTS"] == []
    assert out["good_host"][0] == 400 and out["bad_host"] == 400
