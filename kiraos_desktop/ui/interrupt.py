"""Ctrl+C in the terminal that started the window closes it, as the window's close button would."""
from __future__ import annotations

import signal
import threading
from typing import Callable

from PySide6.QtCore import QObject, QTimer

#: How often Qt's event loop hands control back to Python so that a pending signal gets handled.
WAKE_MS = 250


def close_on_interrupt(window, parent: QObject) -> Callable[[], None]:
    """Install the SIGINT handler; returns what puts the previous one back.

    Python runs signal handlers only between bytecodes, and Qt's event loop runs none while it
    waits, so a timer wakes it. The close goes through the window's own close path (which may ask
    about unsaved skill edits) on the next turn of the event loop, never inside the handler.
    """
    previous = signal.getsignal(signal.SIGINT)
    if threading.current_thread() is not threading.main_thread() or previous == signal.SIG_IGN:
        return lambda: None  # started with Ctrl+C ignored (nohup, a background job): keep it so
    wake = QTimer(parent)
    wake.setObjectName("interruptWake")
    wake.timeout.connect(lambda: None)
    wake.start(WAKE_MS)
    signal.signal(signal.SIGINT, lambda *_: QTimer.singleShot(0, getattr(window, "quit", window.close)))

    def restore() -> None:
        wake.stop()
        signal.signal(signal.SIGINT, previous if previous is not None else signal.SIG_DFL)

    return restore
