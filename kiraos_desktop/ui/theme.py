"""Light and dark palettes that follow the system colour scheme, and icons tinted to match."""
from __future__ import annotations

import os
from functools import lru_cache

from PySide6.QtCore import QByteArray, QObject, QRectF, Qt, Signal
from PySide6.QtGui import QColor, QGuiApplication, QIcon, QPainter, QPalette, QPixmap
from PySide6.QtSvg import QSvgRenderer
from PySide6.QtWidgets import QApplication, QStyleFactory

from kiraos_desktop.core.resources import icons_dir

ENV_SCHEME = "KIRAOS_COLOR_SCHEME"  # "dark" or "light" forces a scheme (screenshots, testing)
ICON_SIZES = (16, 20, 24, 32, 48)

STYLE_SHEET = """
QListWidget#sidebar { border: none; background: palette(window); padding: 8px 6px; outline: 0; }
QListWidget#sidebar::item { padding-left: 8px; border-radius: 6px; }
QListWidget#sidebar::item:selected { background: palette(highlight); color: palette(highlighted-text); }
QListWidget#sidebar::item:hover:!selected { background: palette(midlight); }
QFrame#statCard { border: 1px solid palette(mid); border-radius: 8px; background: palette(base); }
QLabel#statCaption { color: palette(window-text); }
QLabel#statDetail { color: palette(placeholder-text); }
"""


def _dark_palette() -> QPalette:
    palette = QPalette()
    colors = {
        QPalette.ColorRole.Window: "#2b2d31", QPalette.ColorRole.WindowText: "#e8e8ea",
        QPalette.ColorRole.Base: "#1e1f22", QPalette.ColorRole.AlternateBase: "#26282c",
        QPalette.ColorRole.Text: "#e8e8ea", QPalette.ColorRole.Button: "#36383d",
        QPalette.ColorRole.ButtonText: "#e8e8ea", QPalette.ColorRole.BrightText: "#ffffff",
        QPalette.ColorRole.Highlight: "#3f6fb5", QPalette.ColorRole.HighlightedText: "#ffffff",
        QPalette.ColorRole.ToolTipBase: "#36383d", QPalette.ColorRole.ToolTipText: "#e8e8ea",
        QPalette.ColorRole.PlaceholderText: "#9a9ea6", QPalette.ColorRole.Link: "#7cb1ff",
        QPalette.ColorRole.LinkVisited: "#b99cff", QPalette.ColorRole.Light: "#4a4d53",
        QPalette.ColorRole.Midlight: "#3e4046", QPalette.ColorRole.Mid: "#4b4e55",
        QPalette.ColorRole.Dark: "#1a1b1e", QPalette.ColorRole.Shadow: "#0e0f10",
    }
    for role, color in colors.items():
        palette.setColor(role, QColor(color))
    for role, color in ((QPalette.ColorRole.Text, "#7d8189"), (QPalette.ColorRole.WindowText, "#7d8189"),
                        (QPalette.ColorRole.ButtonText, "#7d8189"), (QPalette.ColorRole.Highlight, "#3a3d42")):
        palette.setColor(QPalette.ColorGroup.Disabled, role, QColor(color))
    return palette


def _light_palette(app: QApplication) -> QPalette:
    palette = app.style().standardPalette()
    palette.setColor(QPalette.ColorRole.Highlight, QColor("#3b6fc4"))
    palette.setColor(QPalette.ColorRole.HighlightedText, QColor("#ffffff"))
    palette.setColor(QPalette.ColorRole.PlaceholderText, QColor("#777b82"))
    palette.setColor(QPalette.ColorGroup.Disabled, QPalette.ColorRole.Text, QColor("#9a9da3"))
    return palette


_preference = {"scheme": "system"}


def set_scheme_preference(scheme: str) -> None:
    """The `color_scheme` setting: "system" follows the desktop, "light" or "dark" forces one."""
    _preference["scheme"] = scheme if scheme in ("light", "dark") else "system"


def is_dark_scheme() -> bool:
    forced = os.environ.get(ENV_SCHEME, "").strip().lower()
    if forced in ("dark", "light"):
        return forced == "dark"
    if _preference["scheme"] != "system":
        return _preference["scheme"] == "dark"
    hints = QGuiApplication.styleHints()
    return hints.colorScheme() == Qt.ColorScheme.Dark


def apply_theme(app: QApplication) -> bool:
    """Fusion with a palette for the current scheme; returns True when dark."""
    if "Fusion" in QStyleFactory.keys() and app.style().name().lower() != "fusion":
        app.setStyle("Fusion")
    dark = is_dark_scheme()
    app.setPalette(_dark_palette() if dark else _light_palette(app))
    app.setStyleSheet(STYLE_SHEET)
    _tinted_icon.cache_clear()
    return dark


class ThemeWatcher(QObject):
    """Re-applies the palette when the system switches between light and dark."""

    changed = Signal(bool)  # dark

    def __init__(self, app: QApplication) -> None:
        super().__init__(app)
        self._app = app
        app.styleHints().colorSchemeChanged.connect(self._on_style_hints_color_scheme_changed)

    def _on_style_hints_color_scheme_changed(self, _scheme) -> None:
        self.changed.emit(apply_theme(self._app))


@lru_cache(maxsize=64)
def _svg_text(name: str) -> str:
    return (icons_dir() / f"{name}.svg").read_text(encoding="utf-8")


def _render(svg: str, size: int) -> QPixmap:
    renderer = QSvgRenderer(QByteArray(svg.encode("utf-8")))
    pixmap = QPixmap(size, size)
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pixmap)
    renderer.render(painter, QRectF(0, 0, size, size))
    painter.end()
    return pixmap


@lru_cache(maxsize=64)
def _tinted_icon(name: str, normal: str, selected: str, disabled: str) -> QIcon:
    svg = _svg_text(name)
    icon = QIcon()
    for mode, color in ((QIcon.Mode.Normal, normal), (QIcon.Mode.Selected, selected),
                        (QIcon.Mode.Active, normal), (QIcon.Mode.Disabled, disabled)):
        tinted = svg.replace("currentColor", color)
        for size in ICON_SIZES:
            icon.addPixmap(_render(tinted, size), mode)
    return icon


def themed_icon(name: str, palette: QPalette | None = None) -> QIcon:
    """`resources/icons/<name>.svg` drawn in the palette's text colours (line icons use currentColor)."""
    palette = palette or QApplication.palette()
    return _tinted_icon(name, palette.color(QPalette.ColorRole.WindowText).name(),
                        palette.color(QPalette.ColorRole.HighlightedText).name(),
                        palette.color(QPalette.ColorGroup.Disabled, QPalette.ColorRole.WindowText).name())


def app_icon() -> QIcon:
    icon = QIcon()
    svg = _svg_text("app")
    for size in (16, 24, 32, 48, 64, 128, 256):
        icon.addPixmap(_render(svg, size))
    return icon
