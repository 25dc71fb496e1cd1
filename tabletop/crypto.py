"""Commutative (SRA / Pohlig-Hellman) encryption in a prime-order group, behind one seam.

* A :class:`Group` is a cyclic group of prime order q in which nobody knows
  a discrete log between two cards: raising every card to one key then keeps
  no structure that could name a card. Three modules implement it:
  ``tabletop.secp256k1`` (the default), ``tabletop.ed25519`` and
  ``tabletop.modp`` (RFC 3526 safe primes); ``tabletop.groups`` lists them by
  the id a hello announces.
* Elements and keys are Python ints everywhere outside a group's own module;
  only the group parses, validates, prints and multiplies them.
* A key is a random e in [2, q - 1] (q is prime, so e is invertible) with
  d = e^-1 mod q. No prime search.
* All of a player's secrets for one game derive from a 32-byte seed with
  SHAKE-256, so saving the seed saves the game.
* Batches of exponentiations run off the event loop: in a process pool for a
  group whose arithmetic holds the GIL (gmpy2), on threads for one that
  releases it (libsecp256k1, libsodium).

Nothing here knows about cards' ranks, the network or the game's rules.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import hashlib
import multiprocessing
import multiprocessing.connection
import os
import re
import signal
import sys
import threading
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from dataclasses import dataclass
from multiprocessing import resource_tracker
from typing import Any, TypeVar

T = TypeVar("T")

class CryptoViolation(Exception):
    """Data from the other player that breaks the protocol's crypto rules."""


ENCODING_DOMAIN = b"discard/v2/card"
_SCALAR = re.compile(r"^(0|[1-9a-f][0-9a-f]*)$")


class Group(ABC):
    """A cyclic group of prime order ``q``: its elements, its keys (scalars mod q) and its one operation.

    One instance per group, listed in ``tabletop.groups`` and compared by identity; what it stands for never
    changes (ed25519's only state is a cache of points it has checked).
    """

    name: str  # the id a hello announces: "ed25519", "modp2048", …
    title: str  # for people: "edwards25519", "2048-bit MODP"
    q: int  # the group's prime order; keys are scalars mod q
    key_bytes: int  # a key's fixed length inside a sealed share
    threads: bool  # True: power() releases the GIL, so threads run batches; False: the process pool does

    @abstractmethod
    def element(self, text: str) -> int | None:
        """The element ``text`` encodes canonically, or None if it encodes none (or the identity)."""

    @abstractmethod
    def to_hex(self, x: int) -> str:
        """The canonical wire text of element ``x``."""

    generator: int  # G, the fixed generator keys are committed under (version 5): d is committed as d·G
    identity: int  # the neutral element (never a valid card or key commitment; only inside sums)

    @abstractmethod
    def hash_to_element(self, data: bytes) -> int:
        """An element nobody knows a discrete log of, hashed from ``data`` (card encodings, proof generators)."""

    def encode(self, index: int) -> int:
        """The element for card ``index`` of the unshuffled deck: a hash to the group, fixed by the protocol."""
        return self.hash_to_element(self.card_label(index))

    @abstractmethod
    def base_power(self, k: int) -> int:
        """k·G for the fixed generator G (0 < k < q): a key's commitment, and the cheapest multiplication."""

    def scale(self, x: int, k: int) -> int:
        """k·x for any scalar k and any element x, the identity included (inside proofs, where sums may cancel)."""
        k %= self.q
        if k == 0 or x == self.identity:
            return self.identity
        return self.base_power(k) if x == self.generator else self.power(x, k)

    def add(self, x: int, y: int) -> int:
        """x + y (x · y written multiplicatively), either of them possibly the identity."""
        if x == self.identity:
            return y
        if y == self.identity:
            return x
        return self.multiply(x, y)

    def total(self, elements: list[int]) -> int:
        """The sum of ``elements`` (the identity for none)."""
        result = self.identity
        for x in elements:
            result = self.add(result, x)
        return result

    @abstractmethod
    def power(self, x: int, k: int) -> int:
        """x^k (or k·x, written additively), for 0 < k < q."""

    @abstractmethod
    def multiply(self, x: int, y: int) -> int:
        """x · y, the group's operation (a sum of points, written additively): what a ledger reader can compute."""

    def powers(self, bases: list[int], exponents: list[int]) -> list[int]:
        return [self.power(b, e) for b, e in zip(bases, exponents)]

    def invert(self, k: int) -> int:
        return pow(k, -1, self.q)

    def encoded(self, count: int) -> tuple[int, ...]:
        """The elements for cards 0 .. count - 1, in deck order."""
        return _encodings(self, count)

    def encodings(self, count: int) -> dict[int, int]:
        """Element -> card index, for recognising a decrypted card."""
        return {m: i for i, m in enumerate(self.encoded(count))}

    def from_hex(self, text: str, what: str) -> int:
        """Parse and validate a group element sent by another player."""
        x = self.element(text)
        if x is None:
            raise CryptoViolation(f"{what} is not an element of the game's group")
        return x

    def scalar_from_hex(self, text: str) -> int | None:
        """A proof's scalar: canonical lower-case hex without leading zeros, 0 <= s < q; None otherwise."""
        if not isinstance(text, str) or not _SCALAR.fullmatch(text) or len(text) > len(format(self.q, "x")):
            return None
        s = int(text, 16)
        return s if s < self.q else None

    def exponent_from_hex(self, text: str, what: str) -> int:
        """Parse and validate a key (a scalar in [1, q - 1])."""
        try:
            k = int(text, 16)
        except ValueError:
            raise CryptoViolation(f"{what} is not a hexadecimal number") from None
        if not 1 <= k < self.q:
            raise CryptoViolation(f"{what} is not a valid key for the game's group")
        return k

    def validate_deck(self, values: list[str], size: int, what: str) -> list[int]:
        """A shuffled deck from another player: exact length, valid elements, no duplicates."""
        if len(values) != size:
            raise CryptoViolation(f"{what} has {len(values)} cards instead of {size}")
        deck = [self.from_hex(v, f"{what}: card {i}") for i, v in enumerate(values)]
        if len(set(deck)) != size:
            raise CryptoViolation(f"{what} contains a duplicated card")
        return deck

    def decrypt(self, value: int, *keys: int) -> int:
        """Remove several decryption keys with one exponentiation."""
        exponent = 1
        for d in keys:
            exponent = exponent * d % self.q
        return self.power(value, exponent)

    def card_label(self, index: int) -> bytes:
        """What card ``index``'s encoding hashes: the domain, the group's id and the index."""
        return ENCODING_DOMAIN + b"/" + self.name.encode() + b"/" + str(index).encode()


@functools.lru_cache(maxsize=16)
def _encodings(group: Group, count: int) -> tuple[int, ...]:
    encoded = tuple(group.encode(i) for i in range(count))
    if len(set(encoded)) != count or any(group.element(group.to_hex(m)) != m for m in encoded):
        raise AssertionError(f"card encodings of {group.name} are not {count} distinct group elements")
    return encoded


def derive_bytes(seed: bytes, label: str, length: int) -> bytes:
    return hashlib.shake_256(b"discard/v1/" + seed + b"/" + label.encode()).digest(length)


def derive_below(seed: bytes, label: str, bound: int) -> int:
    """A uniform-enough integer in [0, bound): 128 extra bits make the bias negligible."""
    length = (bound.bit_length() + 128 + 7) // 8
    return int.from_bytes(derive_bytes(seed, label, length), "big") % bound


@dataclass
class Key:
    e: int
    d: int

    @classmethod
    def derive(cls, group: Group, seed: bytes, label: str) -> Key:
        e = derive_below(seed, label, group.q - 2) + 2
        return cls(e, group.invert(e))


# -- running batches off the event loop ------------------------------------------

_pool: ProcessPoolExecutor | None = None
_started = False  # every worker of _pool is up
_preparing = False  # a thread of prepare() is starting them
_threads: ThreadPoolExecutor | None = None
WORKERS = max(1, min(2, os.cpu_count() or 1))


def _powers(group: Group, bases: list[int], exponents: list[int]) -> list[int]:
    return group.powers(bases, exponents)


def _ready() -> None:
    """A worker's first task: nothing, so that starting the pool starts every process."""


def _exit_with_parent() -> None:
    """Worker start-up: leave when the game's process dies, even by SIGKILL.

    Pool workers otherwise outlive a killed parent (each holds its own queue's
    write end, so it never sees EOF), and keep the forkserver alive with them.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the game's to handle, not a worker's
    parent = multiprocessing.parent_process()
    if parent is not None:
        threading.Thread(target=_exit_when_ready, args=(parent.sentinel,), daemon=True).start()


def _exit_when_ready(sentinel: int) -> None:
    multiprocessing.connection.wait([sentinel])
    os._exit(0)


_pool_lock = threading.RLock()  # a pool is never shut down while another thread starts it


def pool() -> ProcessPoolExecutor:
    """The shared worker pool (started on first use; forkserver is safe beside threads)."""
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = ProcessPoolExecutor(WORKERS, mp_context=multiprocessing.get_context("forkserver"),
                                        initializer=_exit_with_parent)
        return _pool


def start_pool() -> None:
    """Start every worker now, so the first batch does not wait for them (once; later calls return at once).

    Ctrl-C reaches the whole foreground process group, and only the game's own process may act on it: the
    forkserver and the workers are started with SIGINT blocked on this thread, and inherit the block (the
    workers leave with the game's process, see :func:`_exit_with_parent`). multiprocessing hands its helper
    processes ``sys.stderr.fileno()``; a full-screen app that captures stderr makes that -1, so the real
    stderr stands in while they start. After a SIGKILL the resource tracker frees the pool's semaphores and
    warns about each one: noise for a player, so its warnings are silenced.
    """
    global _started
    with _pool_lock:
        if _started:
            return
        if QUIET_TRACKER not in sys.warnoptions:  # the tracker gets our interpreter's -W options when it starts
            sys.warnoptions.append(QUIET_TRACKER)
        with real_stderr(), _sigint_blocked():
            resource_tracker.ensure_running()
            signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})  # the tracker unblocks it once started
            for future in [pool().submit(_ready) for _ in range(WORKERS)]:
                future.result()
        _started = True


def prepare(group: Group) -> None:
    """Start the workers ``group`` needs on a thread of their own, unless they are up or starting: a MODP room's
    pool is then ready by its first shuffle. (Threads need nothing started.)"""
    global _preparing
    if group.threads or _started:  # every event of a room asks: most need nothing, and no lock
        return
    with _pool_lock:
        if _started or _preparing:
            return
        _preparing = True
    threading.Thread(target=_start_prepared, name="discard-pool-start", daemon=True).start()


def _start_prepared() -> None:
    """prepare()'s thread: start the pool unless it was shut down meanwhile. A failure is left to the first batch,
    which starts the pool again and raises it where it is handled."""
    with _pool_lock:
        if not _preparing:
            return
        try:
            start_pool()
        except Exception:
            pass


QUIET_TRACKER = "ignore::UserWarning:multiprocessing.resource_tracker"


@contextlib.contextmanager
def _sigint_blocked() -> Iterator[None]:
    """SIGINT blocked on this thread, and the thread's mask as it was afterwards."""
    before = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)


@contextlib.contextmanager
def real_stderr() -> Iterator[None]:
    """The process's own stderr while helper processes start, if an app has captured sys.stderr.

    Only a swapped stream is put back: another thread may have replaced it since.
    """
    captured = sys.stderr
    swapped = not _has_fileno(captured)
    if swapped:
        sys.stderr = sys.__stderr__
    try:
        yield
    finally:
        if swapped:
            sys.stderr = captured


def _has_fileno(stream: object) -> bool:
    try:
        return stream.fileno() >= 0  # type: ignore[attr-defined]
    except (AttributeError, OSError, ValueError):
        return False


def threads() -> ThreadPoolExecutor:
    """The shared threads for groups whose arithmetic releases the GIL."""
    global _threads
    with _pool_lock:
        if _threads is None:
            _threads = ThreadPoolExecutor(WORKERS, thread_name_prefix="discard-crypto")
        return _threads


async def powers(group: Group, bases: list[int], exponents: list[int]) -> list[int]:
    """[b^e] in ``group``, split evenly across the workers (threads or processes, as the group needs)."""
    if len(bases) <= 4:
        return group.powers(bases, exponents)
    loop = asyncio.get_running_loop()
    if not group.threads and not _started:
        await asyncio.to_thread(start_pool)
    executor = threads() if group.threads else pool()
    size = -(-len(bases) // WORKERS)
    chunks = [
        loop.run_in_executor(executor, _powers, group, bases[i : i + size], exponents[i : i + size])
        for i in range(0, len(bases), size)
    ]
    return [x for chunk in await asyncio.gather(*chunks) for x in chunk]


def scaled(group: Group, points: Sequence[int], scalars: Sequence[int]) -> list[int]:
    """[k_i·x_i] here and now (:meth:`Group.scale`: any scalar, the identity included); on a group whose
    arithmetic releases the GIL, split across the crypto threads. For work already on a worker: a proof, a step."""
    if not group.threads or len(points) < 16:
        return _scaled(group, list(points), list(scalars))
    size = -(-len(points) // WORKERS)
    chunks = [threads().submit(_scaled, group, list(points[i:i + size]), list(scalars[i:i + size]))
              for i in range(0, len(points), size)]
    return [x for chunk in chunks for x in chunk.result()]


def _scaled(group: Group, points: list[int], scalars: list[int]) -> list[int]:
    return [group.scale(x, k) for x, k in zip(points, scalars)]


async def call(group: Group, function: Callable[..., T], *args: Any) -> T:
    """``function(*args)`` on a worker: a thread for a group whose arithmetic releases the GIL, else the process
    pool (``function`` is then module-level, and its arguments pickle)."""
    loop = asyncio.get_running_loop()
    if group.threads:
        return await asyncio.to_thread(function, *args)
    if not _started:
        await asyncio.to_thread(start_pool)
    return await loop.run_in_executor(pool(), function, *args)


def shutdown_pool() -> None:
    """Stop the workers; one being started on another thread is started first, then stopped, and one that
    prepare() has yet to start is not started."""
    global _pool, _started, _preparing
    with _pool_lock:
        _preparing = False
        if _pool is not None:
            _pool.shutdown(cancel_futures=True)
            _pool, _started = None, False
