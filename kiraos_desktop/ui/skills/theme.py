"""Colours of the skill workbench, readable on light and dark palettes, and UTF-16 offset helpers."""
from __future__ import annotations

import re
from bisect import bisect_left
from dataclasses import dataclass

from PySide6.QtGui import QColor, QFont, QFontDatabase, QPalette


@dataclass(frozen=True)
class Colors:
    declared_fg: QColor
    declared_bg: QColor
    undeclared_fg: QColor
    undeclared_bg: QColor
    jinja_fg: QColor
    comment_fg: QColor
    heading_fg: QColor
    guard_fg: QColor
    guard_bg: QColor
    input_fg: QColor
    input_bg: QColor
    tag_fg: QColor
    context_fg: QColor
    context_bg: QColor
    tail_fg: QColor
    error_line_bg: QColor
    current_line_bg: QColor
    line_number_fg: QColor
    line_number_bg: QColor
    error_fg: QColor
    warning_fg: QColor
    ok_fg: QColor


def is_dark(palette: QPalette) -> bool:
    return palette.color(QPalette.ColorRole.Base).lightness() < 128


def colors_for(palette: QPalette) -> Colors:
    """The workbench colours for a palette (dark variants keep the same meaning)."""
    base = palette.color(QPalette.ColorRole.Base)
    text = palette.color(QPalette.ColorRole.Text)
    if is_dark(palette):
        return Colors(
            declared_fg=QColor("#8ecbff"), declared_bg=QColor("#1d3a57"),
            undeclared_fg=QColor("#ffd27a"), undeclared_bg=QColor("#5a4210"),
            jinja_fg=QColor("#d7a6ff"), comment_fg=QColor("#8f9aa3"), heading_fg=QColor("#9fd89f"),
            guard_fg=QColor("#ffb3a8"), guard_bg=QColor("#4a2320"),
            input_fg=QColor("#a8f0c0"), input_bg=QColor("#1e4a30"),
            tag_fg=QColor("#8ecbff"), context_fg=QColor("#e4e7f5"), context_bg=QColor("#2b2f45"), tail_fg=QColor("#b0b6bd"),
            error_line_bg=QColor("#5c2020"), current_line_bg=base.lighter(125),
            line_number_fg=text.darker(160), line_number_bg=base.lighter(112),
            error_fg=QColor("#ff8a80"), warning_fg=QColor("#ffd27a"), ok_fg=QColor("#9fd89f"))
    return Colors(
        declared_fg=QColor("#0b4f8a"), declared_bg=QColor("#dcecfb"),
        undeclared_fg=QColor("#7a4a00"), undeclared_bg=QColor("#ffe7a8"),
        jinja_fg=QColor("#7b2fb0"), comment_fg=QColor("#6b7580"), heading_fg=QColor("#1f6b2a"),
        guard_fg=QColor("#8a1c12"), guard_bg=QColor("#fde3df"),
        input_fg=QColor("#0d5a2b"), input_bg=QColor("#d8f3e1"),
        tag_fg=QColor("#0b4f8a"), context_fg=QColor("#1b1f33"), context_bg=QColor("#eceffa"), tail_fg=QColor("#5b636b"),
        error_line_bg=QColor("#ffd6d6"), current_line_bg=base.darker(104),
        line_number_fg=QColor("#5d656d"), line_number_bg=base.darker(103),
        error_fg=QColor("#b3261e"), warning_fg=QColor("#8a5a00"), ok_fg=QColor("#1f6b2a"))


def code_font() -> QFont:
    font = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
    font.setStyleHint(QFont.StyleHint.Monospace)
    return font


_ASTRAL = re.compile("[\U00010000-\U0010FFFF]")


class Utf16Map:
    """Maps str indices of `text` to UTF-16 offsets (Qt counts characters beyond U+FFFF twice)."""

    def __init__(self, text: str):
        self._astral = [] if text.isascii() else [m.start() for m in _ASTRAL.finditer(text)]

    def __call__(self, index: int) -> int:
        if not self._astral:
            return index
        return index + bisect_left(self._astral, index)
