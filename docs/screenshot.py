"""Take the workbench screenshot of the README and the docs (``docs/images/workbench.png``).

    python3 tasks.py docs --screenshot      # or, in the venv: python docs/screenshot.py

Starts ``rpg-balance serve`` on a free port, opens :data:`VIEW` (the duel tab:
``competent_swordsman`` against ``expert_fencer`` in ``dice_pool_7`` with the 9-again
rule, exact) in Debian's headless chromium driven by Playwright (as the browser tests
drive it: ``tests/browser_page.py``), waits for the duel's sentence, and saves the
visible page. Run it again whenever the page changes.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "docs" / "images" / "workbench.png"
#: the view shown: the address keys of docs/workbench.md
VIEW = ("?tab=duel&duel-system=dice_pool_7&a=competent_swordsman&b=expert_fencer"
        "&duel-variant=again=9")
#: text on the page once the duel is computed
READY = "(B) in dice_pool_7"


def take(out: Path = OUT, width: int = 1300, height: int = 1140) -> Path:
    """Serve the workbench, open :data:`VIEW` and save its screenshot at ``out``."""
    sys.path.insert(0, str(ROOT / "tests"))
    from browser_page import Browser
    from test_serve import DEEP

    proc = subprocess.Popen([sys.executable, "-m", "cli", "serve", "--port", "0",
                             "--no-browser"], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)
    try:
        url = re.search(r"http://\S+/", proc.stdout.readline()).group(0)
        with tempfile.TemporaryDirectory() as tmp, \
                Browser(Path(tmp), width=width, height=height) as b:
            b.page.add_init_script(DEEP)
            b.open(url + VIEW)
            deadline = time.monotonic() + 120
            while not b.evaluate(f"deepText().includes({READY!r})"):
                if time.monotonic() > deadline:
                    raise SystemExit(f"the page never showed {READY!r}")
                time.sleep(0.2)
            time.sleep(2)   # the figure settles
            out.parent.mkdir(parents=True, exist_ok=True)
            b.screenshot(out)
    finally:
        proc.send_signal(2)
        proc.wait(15)
        proc.stdout.close()
    return out


if __name__ == "__main__":
    print(take())
