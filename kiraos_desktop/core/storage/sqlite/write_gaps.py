"""Gaps between our write transactions, so that another process (the KiraOS plugin) gets SQLite's
write lock in well under a second even while the API writes as fast as it can.

A process waiting for the lock (SQLite's busy handler, as Python's sqlite3 `timeout` sets it up)
does not queue: it sleeps and tries again, after 1, 2, 5, ... ms and then every 100 ms, and gets the
lock only if it happens to be free at that instant. Writers that commit back to back leave it free
only between a COMMIT and the next BEGIN, a fraction of a millisecond, so most tries fail: at some
1,500 writes per second the plugin's inserts waited up to 4 s, and some failed after its 5 s.

So, while another process has the database open, a transaction that held the lock for t is followed
by a gap of about t (GAP_RATIO) before the next one begins: the lock is free at least half of the
time, each of the waiter's tries has about an even chance, and ten of them (a second) all failing
is about a chance in a thousand. A writer that may not wait (the event loop) is told WriterBusy
and hands its work to a thread, which waits out the gap. With no other process on the file nothing
changes (no gap, no cost). Whether one is there is read from the WAL index's locks: every connection
to a database in WAL mode holds a shared lock on its "DMS" byte (offset 128 of the `-shm` file), and
F_GETLK reports another process's lock (never our own). Where that cannot be asked (no fcntl, an
unknown `struct flock` layout), the gaps are always kept.
"""
from __future__ import annotations

import os
import struct
import sys
import time
from pathlib import Path

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None

#: A transaction is followed by a gap of this many times its length (while another process is there).
GAP_RATIO = 1.0
#: The gap at most: one long transaction does not stop our writes for longer.
MAX_GAP_S = 0.1
#: How often the WAL index's locks are asked whether another process has the database open.
PEER_CHECK_S = 1.0
_DMS_BYTE = 128  # WALINDEX_LOCK_OFFSET (120) + SQLITE_SHM_NLOCK (8)
# struct flock: Linux (l_type, l_whence, l_start, l_len, l_pid, padded to 32 bytes); macOS orders it
# (l_start, l_len, l_pid, l_type, l_whence).
_FLOCK = {"linux": ("hhqqixxxx", 0, 4), "darwin": ("qqihh", 3, 2)}.get(sys.platform)


def other_process_has_open(shm_fd: int | None) -> bool:
    """Whether another process has the database (in WAL mode) open, asked through `shm_fd`, a
    descriptor of its `-shm` file that stays open while SQLite's connections are (see WalPeers);
    True when it cannot be told."""
    if fcntl is None or _FLOCK is None or shm_fd is None:
        return True
    layout, type_at, pid_at = _FLOCK
    try:
        fields = [0] * len(struct.unpack(layout, bytes(struct.calcsize(layout))))
        if type_at == 0:
            fields[0:4] = [fcntl.F_WRLCK, os.SEEK_SET, _DMS_BYTE, 1]
        else:
            fields[0:2], fields[3:5] = [_DMS_BYTE, 1], [fcntl.F_WRLCK, os.SEEK_SET]
        found = struct.unpack(layout, fcntl.fcntl(shm_fd, fcntl.F_GETLK, struct.pack(layout, *fields)))
        return found[type_at] != fcntl.F_UNLCK
    except OSError:
        return True


class WalPeers:
    """The `-shm` descriptor that other_process_has_open() asks. It is opened once and closed only
    with the store, after SQLite's connections: closing any descriptor of a file drops every POSIX
    lock this process holds on it, SQLite's own included, and a peer that then finds no lock on the
    WAL index truncates and rebuilds it under our connections' memory map (SIGBUS)."""

    def __init__(self, db_path: Path) -> None:
        self._shm = Path(f"{db_path}-shm")
        self._fd: int | None = None
        self._unavailable = fcntl is None or _FLOCK is None

    def present(self) -> bool:
        if self._unavailable:
            return True
        if self._fd is None:
            try:
                self._fd = os.open(self._shm, os.O_RDONLY)
            except FileNotFoundError:
                return False  # no WAL index: no connection in WAL mode (ours would have made it)
            except OSError:
                return True
        return other_process_has_open(self._fd)

    def close(self) -> None:
        """After every SQLite connection to the database is closed."""
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


class WriteGaps:
    """The gap rule of one store's writer (called with the store's write lock held)."""

    def __init__(self, db_path: Path, clock=time.monotonic) -> None:
        self._peers_open = WalPeers(db_path)
        self._clock = clock
        self._resume_at = 0.0  # no transaction begins before this (while another process is there)
        self._peers, self._peers_checked = False, float("-inf")

    def _peers_present(self, now: float) -> bool:
        if now - self._peers_checked >= PEER_CHECK_S:
            self._peers, self._peers_checked = self._peers_open.present(), now
        return self._peers

    def wait_needed(self) -> float:
        """Seconds to wait before the next transaction begins (0: none)."""
        now = self._clock()
        if now >= self._resume_at:
            return 0.0
        return self._resume_at - now if self._peers_present(now) else 0.0

    def ended(self, began: float) -> None:
        """A transaction that began at `began` (this clock) has committed or rolled back."""
        now = self._clock()
        if self._peers_present(now):
            self._resume_at = now + min((now - began) * GAP_RATIO, MAX_GAP_S)

    def close(self) -> None:
        """With the store, after its connections are closed."""
        self._peers_open.close()
