"""One way to test discard-web: the server as a process, and headless Chromium driven by selenium.

The browser draws the terminal on a canvas (xterm.js), so its text is not in
the page: :class:`Browser` reads it the way xterm.js does, from the bytes the
server sends over the page's websocket (Chromium's performance log holds
every frame), fed to a terminal emulator (pyte) of the size the page asked
for. Waiting is on what the screen shows, bounded in time, never a sleep.
"""

from __future__ import annotations

import os
import base64
import json
import queue
import re
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pyte

from programs import missing

ROOT = Path(__file__).resolve().parent.parent
SERVING = re.compile(r"discard-web serving on (http://\S+)")
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync"]
WAIT = 20.0  # seconds: an upper bound on anything the screen should show soon


class WebServer:
    """``python -m discard_tui.web --port 0 ARGS``; its output is kept line by line."""

    def __init__(self, *args: str, env: dict[str, str] | None = None) -> None:
        self.proc = subprocess.Popen([sys.executable, "-m", "discard_tui.web", "--port", "0", *args], cwd=ROOT,
                                     stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                     text=True, env=env)
        self.output: list[str] = []
        lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._pump, args=(lines,), daemon=True).start()
        while (line := lines.get(timeout=WAIT)) is not None:
            if match := SERVING.match(line):
                self.url = match[1]
                return
        raise RuntimeError("discard-web did not start:\n" + "\n".join(self.output))

    def _pump(self, lines: queue.Queue[str | None]) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.output.append(line.rstrip("\n"))
            lines.put(self.output[-1])
        lines.put(None)

    def stop(self) -> int:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(WAIT)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        return self.proc.returncode


GATE_SITE = """import os, sys, time
if any("discard-visitor-" in arg for arg in sys.argv):  # a visitor's app, not the server
    while not os.path.exists(os.environ["DISCARD_TEST_GATE"]):
        time.sleep(0.01)
"""


class AppGate:
    """Holds every visitor's app process at its start (a ``sitecustomize`` on its path) until :meth:`open`: what a
    page does before its app is up can be tested however fast the machine starts one."""

    def __init__(self, directory: Path) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        (directory / "sitecustomize.py").write_text(GATE_SITE)
        self.file = directory / "open"
        path = os.pathsep.join(filter(None, [str(directory), os.environ.get("PYTHONPATH")]))
        self.env = dict(os.environ, PYTHONPATH=path, DISCARD_TEST_GATE=str(self.file))

    def open(self) -> None:
        self.file.touch()


class Terminal:
    """What one websocket's frames draw, as xterm.js draws it."""

    def __init__(self, url: str) -> None:
        size = dict(re.findall(r"(width|height)=(\d+)", url))
        self.screen = pyte.Screen(int(size.get("width", 80)), int(size.get("height", 24)))
        self.stream = pyte.ByteStream(self.screen)

    def lines(self) -> list[str]:
        return list(self.screen.display)


class Browser:
    """Headless Chromium with a fresh profile; ``screen()`` is the text of the newest websocket's terminal."""

    def __init__(self, profile_dir: Path, size: tuple[int, int] = (1100, 880)) -> None:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service

        chromium, driver = shutil.which("chromium"), shutil.which("chromedriver")
        if chromium is None or driver is None:
            missing("chromium or its driver", "apt-get install chromium chromium-driver")
        options = webdriver.ChromeOptions()
        options.binary_location = chromium
        for flag in [*CHROMIUM_FLAGS, f"--user-data-dir={profile_dir}", f"--window-size={size[0]},{size[1]}"]:
            options.add_argument(flag)
        options.set_capability("goog:loggingPrefs", {"performance": "ALL"})
        self.driver = webdriver.Chrome(options=options, service=Service(driver))
        self.terminals: dict[str, Terminal] = {}
        self.newest: str | None = None

    def open(self, url: str) -> None:
        self.driver.get(url)

    def page_text(self) -> str:
        from selenium.webdriver.common.by import By

        return str(self.driver.find_element(By.TAG_NAME, "body").text)

    def _pump(self) -> None:
        """Feed every websocket frame received since the last call to its terminal."""
        for entry in self.driver.get_log("performance"):
            message = json.loads(entry["message"])["message"]
            params = message["params"]
            if message["method"] == "Network.webSocketCreated":
                self.terminals[params["requestId"]] = Terminal(params["url"])
                self.newest = params["requestId"]
            elif message["method"] in ("Network.webSocketFrameReceived", "Network.webSocketFrameSent"):
                terminal = self.terminals.get(params["requestId"])
                frame = params["response"]
                if terminal is None:
                    continue
                if message["method"].endswith("Received") and frame["opcode"] == 2:  # the app's output
                    terminal.stream.feed(base64.b64decode(frame["payloadData"]))
                elif message["method"].endswith("Sent") and frame["payloadData"].startswith('["resize"'):
                    size = json.loads(frame["payloadData"])[1]
                    terminal.screen.resize(size["height"], size["width"])

    def screen(self) -> list[str]:
        self._pump()
        return self.terminals[self.newest].lines() if self.newest else []

    def wait_for(self, condition: Callable[[list[str]], object], what: str, timeout: float = WAIT) -> list[str]:
        """Poll the screen until ``condition(lines)`` holds; the lines then."""
        deadline = time.monotonic() + timeout
        while True:
            lines = self.screen()
            if condition(lines):
                return lines
            if time.monotonic() > deadline:
                raise AssertionError(f"the browser never showed {what}; it shows:\n" + "\n".join(lines))
            time.sleep(0.1)  # a polling interval, not a synchronisation: the condition decides

    def wait_for_text(self, *words: str, timeout: float = WAIT) -> list[str]:
        return self.wait_for(lambda lines: all(any(w in line for line in lines) for w in words),
                             " and ".join(repr(w) for w in words), timeout)

    def press(self, *keys: str) -> None:
        """Type, as a person does, into whatever has the focus (the page gives it to the terminal): text, or
        selenium's Keys (Keys.ENTER, Keys.LEFT, …)."""
        from selenium.webdriver.common.action_chains import ActionChains

        ActionChains(self.driver).send_keys(*keys).perform()

    def screenshot(self, path: Path) -> None:
        self.driver.save_screenshot(str(path))

    def quit(self) -> None:
        self.driver.quit()
