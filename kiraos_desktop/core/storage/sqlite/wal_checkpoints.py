"""When and how the SQLite store copies its write-ahead log back into the database (checkpoints).

Checkpoints (copying the WAL back into the database, with an fsync) cost a good part of a write,
and a writer that runs them stalls whoever waits for it (the API's event loop) for tens of ms.
The watcher thread runs them instead (SqliteBackend.checkpoint_if_due()) every
CHECKPOINT_AFTER_COMMITS commits; the writer still checkpoints past WRITER_AUTOCHECKPOINT_PAGES
pages, for processes without a watcher.
"""
from __future__ import annotations

from contextlib import AbstractContextManager
from typing import Callable

WRITER_AUTOCHECKPOINT_PAGES = 40000
# The API commits groups of memory_update calls (up to 32, about 7 at 8 connections; ~35 WAL frames
# a group): after 100 of them the passive checkpoint has ~3500 frames to copy beside the writer, and
# little is left for the part done under the write lock. (400 commits came close to
# CHECKPOINT_COMPLETE_FRAMES by themselves.)
CHECKPOINT_AFTER_COMMITS = 100
CHECKPOINT_COMPLETE_FRAMES = 16000
# Past it, passes beside the writer go on while each finds more than CHECKPOINT_LOCKED_FRAMES frames
# written during the one before (CHECKPOINT_CATCH_UP_PASSES at most): the pass under the write lock
# then has few frames left to copy, and writes wait mostly for its fsyncs (measured under the API's
# writes: 2-70 ms, median 22, instead of 15-93 ms, median 60, with a single pass before the lock).
CHECKPOINT_LOCKED_FRAMES = 500
CHECKPOINT_CATCH_UP_PASSES = 3


def due(commits: int) -> bool:
    """Whether this many commits since the last checkpoint make the next one due."""
    return commits >= CHECKPOINT_AFTER_COMMITS


def checkpoint(passive: Callable[[], int], write_lock: AbstractContextManager) -> None:
    """Copy committed WAL frames into the database with `passive` (one PASSIVE checkpoint, which
    returns the frames the WAL holds: other processes may go on writing).

    Beside our writer first: the bulk of the work, in parallel with it. Under steady writing such a
    checkpoint never completes, and the WAL (and every lookup in it) keeps growing, so past
    CHECKPOINT_COMPLETE_FRAMES it is finished holding the store's `write_lock` (writes wait for the
    frames written meanwhile and an fsync); the next write then starts the WAL over. Passes beside
    the writer catch up with it first, so that the one under the lock copies little.
    """
    frames = passive()
    if frames < CHECKPOINT_COMPLETE_FRAMES:
        return
    for _ in range(CHECKPOINT_CATCH_UP_PASSES):
        now = passive()
        if now - frames <= CHECKPOINT_LOCKED_FRAMES:
            break
        frames = now
    with write_lock:
        passive()
