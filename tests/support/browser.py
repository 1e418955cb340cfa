"""Headless Chromium (Debian's package) for the browser tests, driven by Playwright; never `playwright install`."""
from __future__ import annotations

from pathlib import Path

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]


def log_in(page, base_url: str, next_path: str, username: str = "operator",
           password: str = "pw-for-tests-only") -> None:
    """Through the admin's login form, landing on `next_path`."""
    page.goto(f"{base_url}/admin/login/?next={next_path}")
    page.fill("#id_username", username)
    page.fill("#id_password", password)
    page.click("input[type=submit]")
    page.wait_for_url(f"{base_url}{next_path}")
