"""A tiny headless-Chromium driver for the viewer tests (Chrome DevTools Protocol over a websocket).

Why not Playwright or Selenium: they download their own browser builds or drivers. Debian's
`chromium` plus `websocket-client` is all this needs: open a page, evaluate JavaScript, click
with real mouse events, take a screenshot.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import shutil
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-default-apps",
    "--disable-extensions",
    "--mute-audio",
    "--hide-scrollbars",
]


def find_or_install() -> tuple[str | None, str]:
    """The Chromium binary, installing Debian's package when it is missing and we are root.

    Returns (path, "") or (None, why it cannot be had).
    """
    found = _which()
    if found:
        return found, ""
    if not hasattr(os, "geteuid") or os.geteuid() != 0 or not shutil.which("apt-get"):
        return None, "chromium is not installed and this user cannot apt-get install it"
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    install = ["apt-get", "install", "-y", "-q", "chromium"]
    for step in ([], [["apt-get", "update", "-q"]]):
        try:
            for command in [*step, install]:
                subprocess.run(command, env=env, check=True, capture_output=True, timeout=900)
            break
        except (subprocess.SubprocessError, OSError):
            continue
    found = _which()
    return (found, "") if found else (None, "apt-get install chromium failed")


def _which() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


class Browser:
    """One headless Chromium with one page, driven over the DevTools protocol."""

    def __init__(self, binary: str, width: int = 1400, height: int = 900) -> None:
        import websocket  # websocket-client, a dev dependency

        self.profile = tempfile.TemporaryDirectory(prefix="tg-chromium-")
        self.proc = subprocess.Popen(
            [
                binary,
                *FLAGS,
                "--remote-debugging-port=0",
                f"--user-data-dir={self.profile.name}",
                f"--window-size={width},{height}",
                "about:blank",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            port = self._port()
            url = self._page_socket(port)
            self.ws = websocket.create_connection(url, timeout=30, suppress_origin=True)
        except BaseException:
            self.close()
            raise
        self._next = 0
        self.send("Page.enable")
        self.send("Runtime.enable")
        self.send(
            "Emulation.setDeviceMetricsOverride",
            {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
        )

    def _port(self, timeout: float = 20) -> int:
        marker = Path(self.profile.name) / "DevToolsActivePort"
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"chromium exited with code {self.proc.returncode}")
            if marker.exists():
                lines = marker.read_text().split()
                if lines:
                    return int(lines[0])
            time.sleep(0.05)
        raise TimeoutError("chromium did not open its debugging port")

    @staticmethod
    def _page_socket(port: int) -> str:
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # loopback only
        deadline = time.monotonic() + 10
        while True:
            with opener.open(f"http://127.0.0.1:{port}/json/list", timeout=5) as response:
                targets = json.load(response)
            pages = [t for t in targets if t.get("type") == "page"]
            if pages:
                return pages[0]["webSocketDebuggerUrl"]
            if time.monotonic() > deadline:
                raise RuntimeError("chromium has no page target")
            time.sleep(0.05)

    def send(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        """One protocol command; events that arrive meanwhile are ignored."""
        self._next += 1
        ident = self._next
        self.ws.send(json.dumps({"id": ident, "method": method, "params": params or {}}))
        while True:
            message = json.loads(self.ws.recv())
            if message.get("id") == ident:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message.get("result", {})

    def evaluate(self, expression: str) -> Any:
        result = self.send(
            "Runtime.evaluate",
            {"expression": expression, "returnByValue": True, "awaitPromise": True},
        )
        if "exceptionDetails" in result:
            raise RuntimeError(f"page error: {result['exceptionDetails']}")
        return result["result"].get("value")

    def open(
        self,
        url: str,
        ready: str = "document.body && document.body.dataset.ready === '1'",
        timeout: float = 15,
    ) -> float:
        """Navigate and wait until `ready` is true; returns the seconds it took."""
        started = time.monotonic()
        self.send("Page.navigate", {"url": url})
        while time.monotonic() - started < timeout:
            try:
                if self.evaluate(ready):
                    return time.monotonic() - started
            except RuntimeError:
                pass  # the old document is going away
            time.sleep(0.05)
        raise TimeoutError(f"page not ready after {timeout} s: {url}")

    def click(self, x: float, y: float) -> None:
        """A real left click (mouse moved, pressed, released) at viewport coordinates."""
        for kind in ("mouseMoved", "mousePressed", "mouseReleased"):
            self.send(
                "Input.dispatchMouseEvent",
                {
                    "type": kind,
                    "x": x,
                    "y": y,
                    "button": "left",
                    "buttons": 1 if kind == "mousePressed" else 0,
                    "clickCount": 0 if kind == "mouseMoved" else 1,
                },
            )

    def screenshot(self, path: Path) -> Path:
        data = self.send("Page.captureScreenshot", {"format": "png"})["data"]
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(base64.b64decode(data))
        return path

    def close(self) -> None:
        ws = getattr(self, "ws", None)
        if ws is not None:
            with contextlib.suppress(Exception):  # closing anyway
                self.send("Browser.close")
            ws.close()
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=5)
        self.profile.cleanup()
