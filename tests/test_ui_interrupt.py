"""Ctrl+C (SIGINT) closes the window through its close path, and the previous handler comes back."""
import signal

import pytest

from PySide6.QtWidgets import QWidget

from kiraos_desktop.ui.interrupt import close_on_interrupt


@pytest.fixture(autouse=True)
def sigint_handled():
    """Python's own SIGINT handler, whatever this process started with: a shell starts a background
    job (`make test &`) with SIGINT ignored, and an ignored SIGINT is meant to stay ignored."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


class Window(QWidget):
    def __init__(self, refuse: bool = False):
        super().__init__()
        self.refuse = refuse
        self.asked = 0

    def closeEvent(self, event):
        self.asked += 1
        if self.refuse:  # like unsaved skill edits the user keeps
            event.ignore()
        else:
            super().closeEvent(event)


def test_sigint_closes_the_window_and_the_old_handler_returns(qtbot):
    window = Window()
    qtbot.addWidget(window)
    window.show()
    before = signal.getsignal(signal.SIGINT)
    restore = close_on_interrupt(window, window)
    try:
        assert signal.getsignal(signal.SIGINT) is not before
        signal.raise_signal(signal.SIGINT)
        qtbot.waitUntil(lambda: not window.isVisible(), timeout=2000)
        assert window.asked == 1
    finally:
        restore()
    assert signal.getsignal(signal.SIGINT) is before


def test_sigint_goes_through_the_close_path_which_may_refuse(qtbot):
    window = Window(refuse=True)
    qtbot.addWidget(window)
    window.show()
    restore = close_on_interrupt(window, window)
    try:
        signal.raise_signal(signal.SIGINT)
        qtbot.waitUntil(lambda: window.asked == 1, timeout=2000)
        assert window.isVisible()
    finally:
        restore()


def test_an_ignored_sigint_stays_ignored(qtbot):
    window = Window()
    qtbot.addWidget(window)
    window.show()
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        restore = close_on_interrupt(window, window)
        assert signal.getsignal(signal.SIGINT) == signal.SIG_IGN
        restore()
        assert window.isVisible()
    finally:
        signal.signal(signal.SIGINT, previous)
