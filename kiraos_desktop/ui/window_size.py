"""A window opens inside the screen it opens on, at the size it last had on that screen.

The main window opened at 1180x760 and the 3.x window at 1280x800 whatever the screen: on a
1024x700 screen their buttons, tabs and status line were off screen. Sizes are remembered per
screen (its name and available size), so a laptop's small screen does not shrink the window that
a large monitor gets.
"""
from __future__ import annotations

from PySide6.QtCore import QRect, QSettings, QSize
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QWidget

#: Room kept for the frame the window manager adds (title bar, borders): not part of the size.
FRAME_ALLOWANCE = QSize(16, 40)


def available_room(window: QWidget) -> QRect:
    """The desktop area of the screen the window is on (the primary one before it is shown)."""
    screen = window.screen() or QGuiApplication.primaryScreen()
    return screen.availableGeometry() if screen is not None else QRect()


def _key(prefix: str, window: QWidget, room: QRect) -> str:
    screen = window.screen() or QGuiApplication.primaryScreen()
    name = screen.name() if screen is not None else ""
    return f"{prefix}/size/{name or 'screen'}-{room.width()}x{room.height()}"


def place_window(window: QWidget, settings: QSettings, prefix: str, default: QSize,
                 room: QRect | None = None) -> None:
    """Size the window as it last was on this screen (else `default`), never larger than the
    screen's free area less the frame, and centre it there."""
    room = available_room(window) if room is None else room
    saved = settings.value(_key(prefix, window, room))
    size = saved if isinstance(saved, QSize) and saved.isValid() else QSize(default)
    if room.isValid():
        size = size.boundedTo(room.size() - FRAME_ALLOWANCE)
    window.resize(size)
    if room.isValid():
        shown = window.size()  # a minimum size may have kept it larger
        window.move(room.x() + max(0, (room.width() - shown.width() - FRAME_ALLOWANCE.width()) // 2),
                    room.y() + max(0, (room.height() - shown.height() - FRAME_ALLOWANCE.height()) // 2))


def remember_window(window: QWidget, settings: QSettings, prefix: str, room: QRect | None = None) -> None:
    """Keep the window's size for the next time it opens on this screen."""
    room = available_room(window) if room is None else room
    settings.setValue(_key(prefix, window, room), window.size())
