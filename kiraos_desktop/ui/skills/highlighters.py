"""Syntax highlighters: the instruction (placeholders, Jinja2) and the preview (guard, user input)."""
from __future__ import annotations

import re
from bisect import bisect_right
from typing import Iterable

from PySide6.QtGui import QFont, QSyntaxHighlighter, QTextCharFormat, QTextDocument, QTextFormat

from kiraos_desktop.core.skills import placeholder_spans

from .theme import Colors, Utf16Map

_JINJA_STATEMENT = re.compile(r"\{%.*?%\}")
_JINJA_COMMENT = re.compile(r"\{#.*?#\}")
_JINJA_EXPRESSION = re.compile(r"\{\{.*?\}\}")
_HEADING = re.compile(r"^#{1,6}\s")

#: Format properties tests and tools can read back from a block's layout.
KIND_PROPERTY = QTextFormat.Property.UserProperty.value + 1  # which kind of region a format marks


def _format(fg=None, bg=None, bold=False, italic=False, kind: str = "", underline=False) -> QTextCharFormat:
    fmt = QTextCharFormat()
    if fg is not None:
        fmt.setForeground(fg)
    if bg is not None:
        fmt.setBackground(bg)
    if bold:
        fmt.setFontWeight(QFont.Weight.Bold)
    if italic:
        fmt.setFontItalic(True)
    if underline:
        fmt.setUnderlineStyle(QTextCharFormat.UnderlineStyle.WaveUnderline)
        if fg is not None:
            fmt.setUnderlineColor(fg)
    if kind:
        fmt.setProperty(KIND_PROPERTY, kind)
    return fmt


class InstructionHighlighter(QSyntaxHighlighter):
    """Marks declared placeholders, undeclared ones (warning colour), Markdown headings and, for
    skills that opt into Jinja2, `{% %}` statements and `{# #}` comments."""

    def __init__(self, document: QTextDocument, colors: Colors):
        super().__init__(document)
        self._declared: frozenset[str] = frozenset()
        self._template = "plain"
        self.set_colors(colors, rehighlight=False)

    def set_colors(self, colors: Colors, rehighlight: bool = True) -> None:
        self._fmt = {
            "declared": _format(colors.declared_fg, colors.declared_bg, bold=True, kind="declared"),
            "undeclared": _format(colors.undeclared_fg, colors.undeclared_bg, kind="undeclared",
                                  underline=True),
            "jinja": _format(colors.jinja_fg, kind="jinja"),
            "comment": _format(colors.comment_fg, italic=True, kind="comment"),
            "heading": _format(colors.heading_fg, bold=True, kind="heading"),
        }
        if rehighlight:
            self.rehighlight()

    @property
    def template(self) -> str:
        return self._template

    def set_declared(self, names: Iterable[str], template: str) -> None:
        """Declared parameter names and template kind; re-highlights only when they change."""
        declared = frozenset(names)
        template = template if template == "jinja2" else "plain"
        if declared == self._declared and template == self._template:
            return
        self._declared, self._template = declared, template
        self.rehighlight()

    def highlightBlock(self, text: str) -> None:  # noqa: N802 (Qt override)
        if not text:
            return
        u16 = Utf16Map(text)

        def mark(start: int, end: int, fmt: QTextCharFormat) -> None:
            begin = u16(start)
            self.setFormat(begin, u16(end) - begin, fmt)

        if _HEADING.match(text):
            mark(0, len(text), self._fmt["heading"])
        if self._template == "jinja2" and "{" in text:
            for pattern, key in ((_JINJA_STATEMENT, "jinja"), (_JINJA_EXPRESSION, "jinja"),
                                 (_JINJA_COMMENT, "comment")):
                for m in pattern.finditer(text):
                    mark(m.start(), m.end(), self._fmt[key])
        if "{" not in text:
            return
        for start, end, _name, declared in placeholder_spans(text, self._declared, self._template):
            mark(start, end, self._fmt["declared" if declared else "undeclared"])


class PreviewHighlighter(QSyntaxHighlighter):
    """Paints precomputed regions of the tool result: the exclude guard, `<user_input>` values,
    the `<context>` block, the wrapper tags and the closing sentence."""

    def __init__(self, document: QTextDocument, colors: Colors):
        super().__init__(document)
        self._spans: list[tuple[int, int, str]] = []
        self._ends_sorted: list[int] = []
        self.set_colors(colors, rehighlight=False)

    def set_colors(self, colors: Colors, rehighlight: bool = True) -> None:
        self._fmt = {
            "guard": _format(colors.guard_fg, colors.guard_bg, kind="guard"),
            "context": _format(None, colors.context_bg, kind="context"),
            "input": _format(colors.input_fg, colors.input_bg, bold=True, kind="input"),
            "tag": _format(colors.tag_fg, bold=True, kind="tag"),
            "tail": _format(colors.tail_fg, italic=True, kind="tail"),
        }
        if rehighlight:
            self.rehighlight()

    def set_spans(self, text: str, spans: list[tuple[int, int, str]], rehighlight: bool = True) -> None:
        """Regions as str indices of `text` (the document's plain text); painted in list order."""
        u16 = Utf16Map(text)
        self._spans = [(u16(s), u16(e), kind) for s, e, kind in spans]
        self._ends_sorted = sorted(e for _s, e, _k in self._spans)
        if rehighlight:
            self.rehighlight()

    def highlightBlock(self, text: str) -> None:  # noqa: N802 (Qt override)
        if not self._spans:
            return
        block = self.currentBlock()
        begin = block.position()
        end = begin + block.length()
        if bisect_right(self._ends_sorted, begin) == len(self._ends_sorted):
            return  # every region ends before this block
        for start, stop, kind in self._spans:
            if stop <= begin or start >= end:
                continue
            first = max(start, begin)
            self.setFormat(first - begin, min(stop, end) - first, self._fmt[kind])
