"""Every colour of the skill workbench is readable on what it is drawn on, in the light and the dark
scheme: WCAG's 4.5:1 for text, measured, not judged by eye."""
from __future__ import annotations

import re

import pytest
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication

from kiraos_desktop.ui.skills.theme import colors_for
from kiraos_desktop.ui.theme import apply_theme, set_scheme_preference
from ui_helpers import contrast


@pytest.fixture(params=["light", "dark"])
def scheme(request, qapp):
    set_scheme_preference(request.param)
    apply_theme(QApplication.instance())
    yield request.param
    set_scheme_preference("system")
    apply_theme(QApplication.instance())


def test_every_highlight_colour_is_readable(scheme):
    palette = QApplication.instance().palette()
    c = colors_for(palette)
    base, text = palette.color(QPalette.ColorRole.Base), palette.color(QPalette.ColorRole.Text)
    pairs = {
        "declared": (c.declared_fg, c.declared_bg), "undeclared": (c.undeclared_fg, c.undeclared_bg),
        "guard": (c.guard_fg, c.guard_bg), "input": (c.input_fg, c.input_bg),
        "context": (c.context_fg, c.context_bg), "text on context": (text, c.context_bg),
        "text on error line": (text, c.error_line_bg), "line numbers": (c.line_number_fg, c.line_number_bg),
    }
    for name in ("jinja_fg", "comment_fg", "heading_fg", "tag_fg", "tail_fg", "error_fg", "warning_fg", "ok_fg"):
        pairs[name] = (getattr(c, name), base)
    low = {name: round(contrast(f, b), 2) for name, (f, b) in pairs.items() if contrast(f, b) < 4.5}
    assert not low, (scheme, low)


def test_the_legend_follows_a_switch_to_the_dark_scheme(qtbot, qapp):
    """The <context> sample took the pane's palette text, which a switch reached after the legend was
    made: dark on dark. Its colours are the scheme's own."""
    from kiraos_desktop.ui.skills.preview_pane import PreviewPane

    set_scheme_preference("light")
    apply_theme(QApplication.instance())
    pane = PreviewPane()
    qtbot.addWidget(pane)
    try:
        set_scheme_preference("dark")
        apply_theme(QApplication.instance())
        dark = colors_for(QApplication.instance().palette())
        pane.set_colors(dark)
        html = pane.legend.text()
        sample = re.search(r'background:(#[0-9a-f]{6}); color:(#[0-9a-f]{6})">&nbsp;&lt;context&gt;', html)
        assert sample is not None, html
        assert contrast(QColor(sample.group(2)), QColor(sample.group(1))) >= 4.5
    finally:
        set_scheme_preference("system")
        apply_theme(QApplication.instance())
