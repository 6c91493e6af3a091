"""Keeps PySide6 refcount slips on True, False and None from killing the process (Python < 3.12).

PySide6 6.12 on CPython 3.11 returns borrowed references as new ones in hot paths: every
`SignalInstance.emit()` from Python costs one reference to True, `QCoreApplication.processEvents()`
one to None, and some paint and model paths lose more. The counts of these singletons are only a few
hundred to a few thousand, so a window that emits a few signals per API write aborts with
"bool_dealloc: deallocating True or False" within minutes. CPython 3.12 made these objects immortal;
here they are given the same property by raising their reference counts far beyond anything a
process can lose. Raising a count can never free anything, so this is harmless when the bug is fixed.
"""
from __future__ import annotations

import ctypes
import sys

_HEADROOM = 1 << 40  # a trillion lost references: decades at a million a second
_done = False


def protect_singletons() -> bool:
    """Raise the reference counts of True, False and None once; True when it was applied."""
    global _done
    if _done or sys.version_info >= (3, 12) or sys.implementation.name != "cpython":
        return False
    for singleton in (True, False, None):
        # ob_refcnt is the first field of every CPython object (a Py_ssize_t); the GIL is held.
        ctypes.c_ssize_t.from_address(id(singleton)).value += _HEADROOM
    _done = True
    return True
