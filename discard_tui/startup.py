"""Starting the crypto process pool without delaying the first frame or leaking a traceback on Ctrl-C.

The pool starts on a thread of its own while the app imports and draws. That
thread blocks SIGINT, and the forkserver and workers it starts inherit the
block: Ctrl-C in the terminal reaches the whole foreground process group, and
only the main process, which exits quietly with status 130, may act on it. The
workers leave when the main process does (see ``crypto._exit_with_parent``).
"""

from __future__ import annotations

import asyncio
import signal
import sys
import threading
from concurrent.futures import Future
from multiprocessing import resource_tracker

from tabletop import crypto

# After a SIGKILL the resource tracker frees the pool's semaphores itself and
# warns about each one; the warning is noise for a player (the tracker gets our
# interpreter's -W options when it starts).
QUIET_TRACKER = "ignore::UserWarning:multiprocessing.resource_tracker"

_ready: Future[None] | None = None


def start_pool_in_background() -> Future[None]:
    """Start the pool once, on its own thread; the future is done when every worker is up."""
    global _ready
    if _ready is None:
        _ready = Future()
        threading.Thread(target=_start, args=(_ready,), name="discard-pool-start", daemon=True).start()
    return _ready


def _start(ready: Future[None]) -> None:
    if not ready.set_running_or_notify_cancel():  # nobody waits any more (the program is stopping)
        return
    try:
        if QUIET_TRACKER not in sys.warnoptions:
            sys.warnoptions.append(QUIET_TRACKER)
        if hasattr(signal, "pthread_sigmask"):
            signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
            with crypto.real_stderr():  # the app may have captured stderr by now
                resource_tracker.ensure_running()  # it unblocks SIGINT on this thread once it has started
            signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        crypto.start_pool()
    except BaseException as error:  # handed to whoever waits for the pool
        ready.set_exception(error)
    else:
        ready.set_result(None)


async def pool_ready() -> None:
    """Wait, without blocking the event loop, until the pool is started (starting it if nobody has)."""
    await asyncio.wrap_future(start_pool_in_background())
