"""Giving freed memory back to the system.

glibc's malloc keeps what Python frees (dropped write buffers, dropped rooms) for reuse: the process's RSS stays at
its peak after an abuser leaves. ``malloc_trim`` hands whole free pages back; :class:`MemoryReturn` calls it at
most once an ``interval`` while the allocator holds ``threshold`` bytes free (``mallinfo2``, glibc 2.33 and
later). A trim with nothing to give back costs microseconds. Where neither function exists it does nothing.
"""

from __future__ import annotations

import ctypes


class _Mallinfo2(ctypes.Structure):
    _fields_ = [(name, ctypes.c_size_t) for name in
                ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks", "fordblks",
                 "keepcost")]


def _libc() -> ctypes.CDLL | None:
    try:
        libc = ctypes.CDLL(None)
        libc.mallinfo2.restype = _Mallinfo2
        libc.malloc_trim.argtypes = [ctypes.c_size_t]
        return libc
    except (OSError, AttributeError):
        return None


class MemoryReturn:
    """``check(now)`` trims the heap when ``interval`` seconds have passed since the last trim and ``threshold``
    bytes lie free in it, and says whether it did."""

    def __init__(self, threshold: int = 4 << 20, interval: float = 1.0) -> None:
        self.threshold, self.interval = threshold, interval
        self._libc = _libc()
        self._trimmed_at = float("-inf")

    def free_bytes(self) -> int:
        """Bytes the allocator holds free (pages already given back included: they cost no RSS until reused)."""
        return self._libc.mallinfo2().fordblks if self._libc else 0

    def check(self, now: float) -> bool:
        if self._libc is None or now - self._trimmed_at < self.interval or self.free_bytes() < self.threshold:
            return False
        self._libc.malloc_trim(0)
        self._trimmed_at = now
        return True
