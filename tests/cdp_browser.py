"""Drive Debian's headless chromium over the DevTools protocol (tests only).

``Browser(user_data_dir)`` starts ``/usr/bin/chromium --headless`` with a debugging port
on 127.0.0.1, connects a websocket to the first page and records console errors and
uncaught exceptions. Used by the report and notebook tests to look at a page as a
reader's browser does.
"""

from __future__ import annotations

import base64
import contextlib
import json
import shutil
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest

CHROMIUM = "/usr/bin/chromium"
INSTALL_HINT = "apt-get install chromium poppler-utils"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--remote-allow-origins=*"]


def require_tool(name: str) -> str:
    """Path of a system program the end-to-end tests need; FAIL (not skip) when missing."""
    path = CHROMIUM if name == "chromium" and Path(CHROMIUM).exists() else shutil.which(name)
    if path is None:
        pytest.fail(f"{name} is not installed; the end-to-end report tests need it: "
                    f"{INSTALL_HINT}  (python3 tasks.py test installs them)")
    return path


class Browser:
    def __init__(self, user_data_dir: Path, width: int = 1200, height: int = 2000):
        import websocket

        exe = require_tool("chromium")
        self.proc = subprocess.Popen(
            [exe, *FLAGS, f"--user-data-dir={user_data_dir}", "--remote-debugging-port=0",
             f"--window-size={width},{height}", "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        port_file = Path(user_data_dir) / "DevToolsActivePort"
        deadline = time.monotonic() + 30
        while not (port_file.exists() and port_file.read_text().strip()):
            if time.monotonic() > deadline or self.proc.poll() is not None:
                self.close()
                raise RuntimeError("chromium did not open its debugging port")
            time.sleep(0.1)
        port = int(port_file.read_text().split()[0])
        pages = []
        while not pages:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=10) as r:
                pages = [p for p in json.load(r) if p.get("type") == "page"]
            if time.monotonic() > deadline:
                raise RuntimeError("chromium has no page target")
            time.sleep(0.05)
        self.ws = websocket.create_connection(pages[0]["webSocketDebuggerUrl"], timeout=60,
                                              suppress_origin=True)
        self._id = 0
        self.errors: list[str] = []
        self.events: list[dict] = []
        for domain in ("Page", "Runtime", "Log"):
            self.call(f"{domain}.enable")

    def _record(self, msg: dict) -> None:
        method = msg.get("method", "")
        params = msg.get("params", {})
        self.events.append(msg)
        if method == "Runtime.exceptionThrown":
            self.errors.append("exception: " + json.dumps(params.get("exceptionDetails", {}))
                               [:500])
        elif method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
            self.errors.append("console: " + json.dumps(params.get("args", []))[:500])
        elif method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
            self.errors.append("log: " + params["entry"].get("text", "")[:500])

    def call(self, method: str, **params) -> dict:
        self._id += 1
        self.ws.send(json.dumps({"id": self._id, "method": method, "params": params}))
        while True:
            msg = json.loads(self.ws.recv())
            if msg.get("id") == self._id:
                if "error" in msg:
                    raise RuntimeError(f"{method}: {msg['error']}")
                return msg.get("result", {})
            self._record(msg)

    def wait_event(self, method: str, timeout: float = 60) -> dict:
        for msg in self.events:
            if msg.get("method") == method:
                return msg
        self.ws.settimeout(timeout)
        while True:
            msg = json.loads(self.ws.recv())
            self._record(msg)
            if msg.get("method") == method:
                return msg

    def open(self, url: str) -> None:
        self.events.clear()
        self.call("Page.navigate", url=url)
        self.wait_event("Page.loadEventFired")

    def evaluate(self, expression: str):
        res = self.call("Runtime.evaluate", expression=expression, returnByValue=True,
                        awaitPromise=True)
        if "exceptionDetails" in res:
            raise RuntimeError(f"evaluate failed: {res['exceptionDetails']}")
        return res["result"].get("value")

    def screenshot(self, path: Path, full_page: bool = False) -> Path:
        params = {"format": "png"}
        if full_page:
            params["captureBeyondViewport"] = True
        data = self.call("Page.captureScreenshot", **params)["data"]
        Path(path).write_bytes(base64.b64decode(data))
        return Path(path)

    def close(self) -> None:
        ws = getattr(self, "ws", None)
        if ws is not None:
            with contextlib.suppress(OSError):
                ws.close()
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False
