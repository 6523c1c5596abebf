"""Debian's headless chromium driven by Playwright's sync API (tests only).

Playwright runs ``/usr/bin/chromium`` through ``executable_path`` (no browser download).
:func:`launch_args` are the launch options of every browser the tests start: those of
pytest-playwright's fixtures (tests/conftest.py) and those of :class:`Browser`.
:func:`watch` records a page's console errors and uncaught exceptions, which every
browser test asserts empty.

:class:`Browser` is one page in a chromium of its own, for a session fixture that reads a
built report (tests/test_report.py, tests/test_report_i18n.py,
tests/test_plugin_system.py) and for benchmarks/bench_serve.py: ``open``, ``evaluate``,
``screenshot`` and ``errors``. It stops Playwright when it closes, since Playwright's
sync API keeps an asyncio loop running in this thread while it lives.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

__all__ = ["CHROMIUM", "FLAGS", "INSTALL_HINT", "Browser", "launch_args", "require_tool", "watch"]

CHROMIUM = "/usr/bin/chromium"
INSTALL_HINT = "apt-get install chromium poppler-utils"
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
#: how long one step (a navigation, an evaluation, a wait) may take, in milliseconds
TIMEOUT_MS = 60_000


def require_tool(name: str) -> str:
    """Path of a system program the end-to-end tests need; FAIL (not skip) when missing."""
    path = CHROMIUM if name == "chromium" and Path(CHROMIUM).exists() else shutil.which(name)
    if path is None:
        pytest.fail(
            f"{name} is not installed; the end-to-end report tests need it: "
            f"{INSTALL_HINT}  (python3 tasks.py test installs them)"
        )
    return path


def launch_args() -> dict:
    """Playwright's launch options: Debian's chromium, headless, with no network of its
    own (no component updates, no background requests)."""
    return {"executable_path": require_tool("chromium"), "headless": True, "args": FLAGS}


def watch(page) -> list[str]:
    """The console errors (a failed resource load included) and uncaught exceptions of
    ``page`` from now on, as one line each, in a list that fills as they come."""
    errors: list[str] = []

    def console(message) -> None:
        if message.type in ("error", "assert"):
            errors.append(f"console: {message.text}"[:500])

    page.on("console", console)
    page.on("pageerror", lambda exc: errors.append(f"exception: {exc}"[:500]))
    return errors


class Browser:
    """One page of a chromium started for it (a fresh profile in ``user_data_dir``)."""

    def __init__(self, user_data_dir: Path, width: int = 1200, height: int = 2000):
        from playwright.sync_api import sync_playwright

        args = launch_args()
        self._playwright = sync_playwright().start()
        try:
            self.context = self._playwright.chromium.launch_persistent_context(
                str(user_data_dir), **args, viewport={"width": width, "height": height}
            )
        except BaseException:
            self._playwright.stop()
            raise
        self.page = self.context.pages[0] if self.context.pages else self.context.new_page()
        self.page.set_default_timeout(TIMEOUT_MS)
        self.errors = watch(self.page)

    def open(self, url: str) -> None:
        """Load ``url`` and wait for its load event."""
        self.page.goto(url, wait_until="load")

    def evaluate(self, expression: str):
        """The value of a JavaScript expression (a promise awaited)."""
        return self.page.evaluate(expression)

    def screenshot(self, path: Path, full_page: bool = False) -> Path:
        self.page.screenshot(path=str(path), full_page=full_page)
        return Path(path)

    def close(self) -> None:
        try:
            self.context.close()
        finally:
            self._playwright.stop()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False
