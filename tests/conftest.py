"""Shared test settings and fixtures."""

import importlib
import os
import sys
from pathlib import Path

import pytest

# Tests run the kernels on both cores unless a test pins the thread count itself.
os.environ.setdefault("NUMBA_NUM_THREADS", "2")

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="session")
def plugin_site() -> Path:
    """A site folder holding the example plug-in (examples/plugin_system, id ``pbta_2d6``:
    checks, combat, campaign) and a checks-only copy of it (``pbta_checks``), laid out the
    way an installer lays them out (:func:`plugin_site.install_plugin`). Put it on
    ``PYTHONPATH`` for a subprocess or use :func:`plugin_installed` in this process. The
    folder is kept between sessions (:func:`plugin_site.kept_site`): its numba cache too."""
    from plugin_site import kept_site

    return kept_site(checks_only=True)


@pytest.fixture
def plugin_installed(plugin_site):
    """The plug-in system registered in this process for one test (``sys.path`` and the
    system registry), and gone again afterwards: the registry holds the systems it held
    before, in the same order, so other tests see what they saw without it (values read
    from the registry, e.g. the plot palette, follow it)."""
    from engines import system

    before = dict(system.registry())
    sys.path.insert(0, str(plugin_site))
    importlib.invalidate_caches()
    try:
        assert "pbta_2d6" in system.registry(refresh=True)
        yield plugin_site
    finally:
        while str(plugin_site) in sys.path:
            sys.path.remove(str(plugin_site))
        importlib.invalidate_caches()
        # rebuilt from what is installed without the site: the systems of before
        after = system.registry(refresh=True)
        assert list(after) == list(before), (list(before), list(after))


# ---------------------------------------------------------------- the browser tests
# pytest-playwright's fixtures (``page``, ``context``, ``browser``) drive Debian's
# chromium (tests/browser_page.py); no browser is downloaded. Playwright's sync API keeps
# an asyncio loop running in the test thread while it lives, which would break a later
# test of the same worker that runs an event loop of its own (``asyncio.run``, a
# notebook's kernel client), so Playwright and its chromium live for one module here,
# not for the whole session as the plug-in's own fixtures do.


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    """pytest-playwright's launch options with Debian's chromium (FAILS, never skips,
    when it is missing: :func:`browser_page.require_tool`)."""
    from browser_page import launch_args

    return {**browser_type_launch_args, **launch_args()}


@pytest.fixture(scope="module")
def playwright():
    from playwright.sync_api import sync_playwright

    pw = sync_playwright().start()
    yield pw
    pw.stop()


@pytest.fixture(scope="module")
def browser_type(playwright, browser_name):
    return getattr(playwright, browser_name)


@pytest.fixture(scope="module")
def browser(browser_type, browser_type_launch_args):
    b = browser_type.launch(**browser_type_launch_args)
    yield b
    b.close()


@pytest.fixture(scope="module")
def browser_context_args():
    return {}


# ---------------------------------------------------------------- the tiers
#: the fixtures that start chromium (pytest-playwright's and the ones above): a test that
#: asks for one, directly or through a fixture of its own, needs the browser
BROWSER_FIXTURES = frozenset({"page", "context", "browser", "browser_type", "playwright"})


def pytest_collection_modifyitems(config, items):
    """Mark ``browser`` every test that reaches chromium through a fixture, so the fast
    tier (``-m "not slow and not browser and not notebook"``) leaves it out without each
    test carrying the mark; the full run selects by no mark and still runs it."""
    browser = pytest.mark.browser
    for item in items:
        if BROWSER_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(browser)
