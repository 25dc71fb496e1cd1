"""``discard-web``: discard in a browser, served with textual-serve.

Every visitor (every open tab) gets an app process of their own,
``python -m discard_tui.visit DIR`` (discard_tui/visit.py), with an ephemeral
profile: ``DIR`` is a private temporary directory. Guarantees:

- at most ``--max-sessions`` visitors play at once; one more gets a page
  saying every table is taken (HTTP 503), and a websocket past the limit is
  closed at once;
- when a tab closes (its websocket ends) the app is asked to quit; after
  ``QUIT_GRACE`` seconds, or as soon as it has, every process left in its
  session (the crypto pool's workers, their forkserver) is killed, then its
  directory is removed;
- visitors play the computer through an in-memory relay inside their own
  process, or meet in a room on ``--relay``; nobody can host a relay here;
- the page says at once that the game is starting (an app takes seconds to
  start), and keys reach the app only once it says it is ready (a ``discard``
  meta packet, ``DiscardApp.tell_browser``): typed before, on a page that
  showed nothing yet, they are dropped rather than acted on half-way; the
  app's title becomes the tab's.

textual-serve brings the bridge between a websocket and an app process
(``AppService``), downloads, and the browser side (xterm.js); this module
brings the pages, the limit and the clean-up.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import signal
import sys
import tempfile
from asyncio.subprocess import PIPE, Process
from pathlib import Path
from typing import Any

import aiohttp_jinja2
import jinja2
from aiohttp import WSCloseCode, web
from textual_serve.app_service import AppService
from textual_serve.server import Server, to_int

from .args import OneLineParser, add_think, trust_relay
from .config import THINK

PAGES = Path(__file__).with_name("pages")
QUIT_GRACE = 5.0  # seconds an app has to quit once its tab is gone
log = logging.getLogger("discard-web")


def parser() -> OneLineParser:
    p = OneLineParser(prog="discard-web", description="Serve discard to web browsers: each visitor plays the "
                      "computer, or a person (in a terminal or a browser) in a room on --relay.")
    p.add_argument("--host", default="127.0.0.1", help="the address to listen on (default 127.0.0.1, this machine "
                   "only; 0.0.0.0 for every network it is on)")
    p.add_argument("--port", type=int, default=8000, help="the port to listen on (default 8000)")
    p.add_argument("--relay", metavar="URL", help="the relay where visitors meet people, e.g. ws://host:8765 "
                   "(without it, visitors play the computer)")
    p.add_argument("--relay-ca", metavar="FILE", help="also trust this CA certificate for wss:// (a self-signed relay)")
    add_think(p, THINK, ", for every visitor")
    p.add_argument("--max-sessions", type=int, default=20, metavar="N",
                   help="visitors playing at once (default 20); one more is asked to come back later")
    return p


class VisitorService(AppService):
    """One visitor's app process, in a session of its own so that everything it starts ends with it."""

    def __init__(self, argv: list[str], **options: Any) -> None:
        super().__init__(argv[0], **options)
        self.argv = argv
        self.stopped = False
        self.ready = False  # the app has said it takes keys
        self.focused = False  # the page has the focus (as it last said)

    async def send_bytes(self, data: bytes) -> bool:
        """The visitor's keys, once the app is ready for them; before, they are dropped."""
        return await super().send_bytes(data) if self.ready else True

    async def focus(self) -> None:
        self.focused = True
        await super().focus()

    async def blur(self) -> None:
        self.focused = False
        await super().blur()

    async def on_meta(self, data: bytes) -> None:
        """The app's own news (``{"type": "discard", "ready": true}``, ``"title": …``) goes to the page as
        ``["discard", {…}]``, which textual-serve's script ignores and the page's own reads; the rest as usual."""
        meta = json.loads(data)
        if meta.get("type") != "discard":
            await super().on_meta(data)
            return
        if meta.get("ready") is True and not self.ready:
            self.ready = True
            if self.focused:  # said while the app was starting, maybe before it could hear it: say it again
                await super().focus()
        news = {key: value for key, value in meta.items() if key in ("ready", "title")}
        await self.remote_write_str(json.dumps(["discard", news]))

    async def _open_app_process(self, width: int = 80, height: int = 24) -> Process:
        """As textual-serve does, but without a shell and as the leader of a new process group."""
        self._process = process = await asyncio.create_subprocess_exec(
            *self.argv, stdin=PIPE, stdout=PIPE, stderr=PIPE, env=self._build_environment(width, height),
            start_new_session=True)
        assert process.stdin is not None
        self._stdin = process.stdin
        return process

    async def stop(self) -> None:
        """Ask the app to quit; after ``QUIT_GRACE`` seconds, or once it has, kill what is left of its group."""
        if self.stopped:
            return
        self.stopped = True
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(QUIT_GRACE):
                await super().stop()
        process = self._process
        if process is not None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(process.pid, signal.SIGKILL)  # the group outlives its leader by moments at most
            await process.wait()


class WebServer(Server):
    """textual-serve's server with discard's pages, a limit on visitors and a profile for each."""

    def __init__(self, relay: str | None = None, relay_ca: str | None = None, max_sessions: int = 20,
                 host: str = "127.0.0.1", port: int = 8000, think: float = THINK) -> None:
        super().__init__("discard_tui.visit", host=host, port=port, title="discard", templates_path=PAGES)
        self.relay_args = [*(["--relay", relay] if relay else []), *(["--relay-ca", relay_ca] if relay_ca else []),
                           "--think", str(think)]
        self.max_sessions = max_sessions
        self.sessions: set[VisitorService] = set()

    @property
    def full(self) -> bool:
        return len(self.sessions) >= self.max_sessions

    def make_app(self) -> web.Application:
        app = web.Application()
        aiohttp_jinja2.setup(app, loader=jinja2.FileSystemLoader(PAGES))
        app.add_routes([
            web.get("/", self.page, name="index"),
            web.get("/ws", self.visit, name="websocket"),
            web.get("/download/{key}", self.handle_download, name="download"),
            web.static("/static", self.statics_path, name="static"),
        ])
        return app

    async def page(self, request: web.Request) -> web.Response:
        """The page with the terminal, or, when every table is taken, a page that says so."""
        if self.full:
            return aiohttp_jinja2.render_template("full.html", request, {"max_sessions": self.max_sessions},
                                                  status=503)
        websocket = request.url.with_scheme("wss" if request.secure else "ws").with_path("/ws").with_query(None)
        return aiohttp_jinja2.render_template("page.html", request, {
            "static": "/static/", "websocket_url": str(websocket),
            "font_size": to_int(request.query.get("fontsize", "16"), 16)})

    async def visit(self, request: web.Request) -> web.WebSocketResponse:
        """One visit: a private directory and an app process for as long as the websocket is open."""
        websocket = web.WebSocketResponse(heartbeat=15)
        await websocket.prepare(request)
        if self.full:
            await websocket.close(code=WSCloseCode.TRY_AGAIN_LATER, message=b"every table is taken")
            return websocket
        width, height = (to_int(request.query.get(key, default), int(default))
                         for key, default in (("width", "80"), ("height", "24")))
        with tempfile.TemporaryDirectory(prefix="discard-visitor-") as home:
            service = VisitorService(
                [sys.executable, "-m", "discard_tui.visit", home, *self.relay_args],
                write_bytes=websocket.send_bytes, write_str=websocket.send_str, close=websocket.close,
                download_manager=self.download_manager)
            self.sessions.add(service)
            try:
                await service.start(width, height)
                await self._process_messages(websocket, service)
            except Exception as error:  # one visitor's trouble (a malformed frame, say) ends that visit only
                log.warning("a visit ended on %s: %s", type(error).__name__, error)
            finally:
                await service.stop()
                self.sessions.discard(service)
        return websocket

    async def run(self) -> None:
        """Serve until SIGINT or SIGTERM; then end every visit."""
        runner = web.AppRunner(self.make_app())
        await runner.setup()
        await web.TCPSite(runner, self.host, self.port).start()
        port = runner.addresses[0][1]
        print(f"discard-web serving on http://{self.host}:{port}", flush=True)
        if self.host in ("0.0.0.0", "::", ""):
            from .invite import addresses

            print("friends open " + " or ".join(f"http://{a}:{port}" for a in addresses(self.host)), flush=True)
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for number in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(number, stop.set)
        await stop.wait()
        await asyncio.gather(*(service.stop() for service in list(self.sessions)))
        await runner.cleanup()


def main(argv: list[str] | None = None) -> None:
    p = parser()
    args = p.parse_args(argv)
    if args.relay or args.relay_ca:
        trust_relay(p, args.relay, args.relay_ca)
    if not 0 <= args.port <= 65535:
        p.error(f"--port {args.port}: use a port from 0 to 65535")
    if args.max_sessions < 1:
        p.error("--max-sessions: use 1 or more")
    logging.basicConfig(level=logging.INFO, format="discard-web: %(message)s")
    server = WebServer(args.relay, args.relay_ca, args.max_sessions, args.host, args.port, args.think)
    try:
        asyncio.run(server.run())
    except OSError as error:
        print(f"discard-web: cannot listen on {args.host}:{args.port}: {error.strerror or error}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
