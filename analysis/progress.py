"""Progress display for long runs: a tqdm bar on stderr, silent for short work."""

from __future__ import annotations

import sys
import threading
import time


class Progress:
    """A spinner-style elapsed-time line for a single long call whose steps are unknown.

    Shown only when ``enabled`` and the work lasts longer than ``after`` seconds; writes
    to stderr so tables on stdout stay clean.
    """

    def __init__(self, label: str, *, enabled: bool = True, after: float = 1.0):
        self.label, self.enabled, self.after = label, enabled and sys.stderr.isatty(), after
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def _run(self) -> None:
        start = time.monotonic()
        if self._stop.wait(self.after):
            return
        while not self._stop.wait(0.25):
            sys.stderr.write(f"\r{self.label}: {time.monotonic() - start:5.1f} s")
            sys.stderr.flush()
        sys.stderr.write("\r" + " " * 40 + "\r")

    def __enter__(self):
        if self.enabled:
            self._thread = threading.Thread(target=self._run, daemon=True)
            self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        return False


def bar(total: int, desc: str, **kw):
    """A tqdm progress bar on stderr (hidden when not a terminal unless forced)."""
    from tqdm.auto import tqdm

    return tqdm(total=total, desc=desc, file=sys.stderr, leave=False,
                disable=kw.pop("disable", None), **kw)
