"""Headless Chromium (Debian's package, never `playwright install`) driven by Playwright, for the
admin and dashboard tests: launching it, logging in as staff, checking a page for horizontal
overflow, and screenshots under .data/test-artifacts/admin-ui/.

Playwright's sync API runs an event loop in the test's thread, in which Django refuses ORM calls:
a test writes its data before `chromium()` and reads the database after it closes.
"""
from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, Page, sync_playwright

from .worker import ARTIFACTS

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
SCREENSHOTS = ARTIFACTS / "admin-ui"
WIDTHS = (1280, 1400)
STAFF_PASSWORD = "pw-for-tests-only"


@contextmanager
def chromium() -> Iterator[Browser]:
    """A fresh browser: Playwright's launch() gives it a new temporary profile (--user-data-dir) each time."""
    assert CHROMIUM.exists(), "install Debian's chromium: apt-get install -y chromium"
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


@dataclass
class PageProblems:
    """Console errors, page errors and dialogs: a page that works raises none."""

    seen: list[str] = field(default_factory=list)

    def watch(self, page: Page) -> Page:
        page.on("console", self._console)
        page.on("pageerror", lambda exc: self.seen.append(f"page error: {exc}"))
        page.on("dialog", lambda dialog: (self.seen.append(f"dialog: {dialog.message}"), dialog.dismiss()))
        return page

    def _console(self, message: Any) -> None:
        # Django's login page has no favicon link, so Chromium asks for /favicon.ico: not ours.
        if message.type == "error" and not message.location.get("url", "").endswith("/favicon.ico"):
            self.seen.append(f"console: {message.text} at {message.location}")


def log_in(page: Page, base_url: str, username: str, then: str = "/admin/") -> None:
    page.goto(f"{base_url}/admin/login/?next={then}")
    page.fill("#id_username", username)
    page.fill("#id_password", STAFF_PASSWORD)
    page.click("input[type=submit]")
    page.wait_for_url(f"{base_url}{then}")


# Boxes whose content must fit them without scrolling sideways (a table spilling out of its module is
# what operators saw), and every element of the content area, whose right edge must stay inside the
# window. Only code blocks and text areas (pre, textarea) may scroll sideways inside themselves.
OVERFLOW_CHECK = """() => {
  const root = document.documentElement;
  const describe = el => el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') +
      (el.classList.length ? '.' + [...el.classList].join('.') : '');
  const scrolls = el => ['auto', 'scroll', 'hidden', 'clip'].includes(getComputedStyle(el).overflowX);
  const codeScroller = el => ['PRE', 'TEXTAREA'].includes(el.tagName) && scrolls(el);
  const insideScroller = el => {
    for (let p = el.parentElement; p; p = p.parentElement) if (codeScroller(p)) return true;
    return false;
  };
  const visible = el => { const r = el.getBoundingClientRect(); return r.width > 0 && r.height > 0; };
  const boxes = [];
  const boxed = '#container .module, #container table, #container fieldset, #container form, #header, ' +
                '.breadcrumbs, .submit-row, .cards, .chart-grid, #changelist .results';
  for (const el of document.querySelectorAll(boxed)) {
    if (!visible(el) || insideScroller(el)) continue;
    const how = scrolls(el) ? 'scrolls sideways' : 'spills';
    if (el.scrollWidth > el.clientWidth + 1)
      boxes.push(`${describe(el)} ${how}: content ${el.scrollWidth}px in ${el.clientWidth}px`);
  }
  const sticking = [];
  for (const el of document.querySelectorAll('#content *')) {
    if (!visible(el) || insideScroller(el)) continue;
    const right = el.getBoundingClientRect().right + window.scrollX;
    if (right > root.clientWidth + 1) sticking.push(`${describe(el)} ends at ${Math.round(right)}px`);
  }
  return {scrollWidth: root.scrollWidth, clientWidth: root.clientWidth, boxes, sticking: sticking.slice(0, 5)};
}"""


@dataclass
class OverflowResult:
    name: str
    width: int
    scroll_width: int
    client_width: int
    boxes: list[str]
    sticking: list[str]

    @property
    def ok(self) -> bool:
        return self.scroll_width <= self.client_width and not self.boxes and not self.sticking

    def line(self) -> str:
        verdict = "OK" if self.ok else "OVERFLOW"
        detail = "; ".join(self.boxes + self.sticking) or "no box overflows"
        return (f"{self.width:>5} px  {self.name:<22} document {self.scroll_width}/{self.client_width} px  "
                f"{verdict:<8} {detail}")


def check_overflow(page: Page, name: str, width: int) -> OverflowResult:
    found = page.evaluate(OVERFLOW_CHECK)
    return OverflowResult(name, width, found["scrollWidth"], found["clientWidth"], found["boxes"], found["sticking"])


def screenshot(page: Page, name: str, width: int) -> Path:
    path = SCREENSHOTS / str(width) / f"{name}.png"
    path.parent.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(path), full_page=True)
    return path
