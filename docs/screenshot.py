"""Take the workbench screenshot of the README and the docs (``docs/images/workbench.png``).

    python3 tasks.py docs --screenshot      # or, in the venv: python docs/screenshot.py

    python docs/screenshot.py --view '?tab=checks' --ready 'Exact chance' --out FILE

Starts ``rpg-balance serve`` on a free port, opens :data:`VIEW` (the Duel tab of
``dice_pool_7``: a shooter against a knight in heavy archaic armour, the shipped rules
pinned as A, B with the armour's ballistic rating edited to 0 — the A/B difference on
screen) in Debian's headless chromium driven by Playwright (as the browser tests drive
it: ``tests/browser_page.py``), waits for :data:`READY`, and saves the page. ``--view``
opens another address (its query, the keys of docs/workbench.md), ``--ready`` waits for
other text. Run it again whenever the page changes.
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
#: the view shown: the address keys of docs/workbench.md (``pin``: A's own query)
VIEW = (
    "?tab=duel&a=competent_shooter&b=competent_knight&armour-b=heavy_archaic"
    "&set=dice_pool_7%3Arules.armour.heavy_archaic.ballistic%3D0"
    "&pin=a%3Dcompetent_shooter%26b%3Dcompetent_knight%26armour-b%3Dheavy_archaic"
)
#: text on the page once the A/B difference is computed
READY = "B − A ="


def take(
    out: Path = OUT, width: int = 1300, height: int = 1500, view: str = VIEW, ready: str = READY
) -> Path:
    """Serve the workbench, open ``view`` and save its screenshot at ``out`` once the
    page shows ``ready``."""
    sys.path.insert(0, str(ROOT / "tests"))
    from browser_page import Browser
    from test_serve import DEEP

    proc = subprocess.Popen(
        [sys.executable, "-m", "cli", "serve", "--port", "0", "--no-browser"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        url = re.search(r"http://\S+/", proc.stdout.readline()).group(0)
        with (
            tempfile.TemporaryDirectory() as tmp,
            Browser(Path(tmp), width=width, height=height) as b,
        ):
            b.page.add_init_script(DEEP)
            b.open(url + view)
            deadline = time.monotonic() + 120
            while not b.evaluate(f"deepText().includes({ready!r})"):
                if time.monotonic() > deadline:
                    raise SystemExit(f"the page never showed {ready!r}")
                time.sleep(0.2)
            time.sleep(2)  # the figure settles
            out.parent.mkdir(parents=True, exist_ok=True)
            b.screenshot(out)
    finally:
        proc.send_signal(2)
        proc.wait(15)
        proc.stdout.close()
    return out


def main(argv=None) -> None:
    import argparse

    parser = argparse.ArgumentParser(description="Take the workbench's screenshot.")
    parser.add_argument(
        "--view",
        default=VIEW,
        help="the address's query (default: the Duel tab with A pinned and B's rule edit)",
    )
    parser.add_argument("--ready", default=READY, help="text the page shows once ready")
    parser.add_argument("--out", type=Path, default=OUT, help="the image (PNG)")
    args = parser.parse_args(argv)
    print(take(args.out, view=args.view, ready=args.ready))


if __name__ == "__main__":
    main()
