"""Paints the skill name with an "Agent Skills" badge for skills kept in the SKILL.md format."""
from __future__ import annotations

from PySide6.QtCore import QModelIndex, QRect, QSize, Qt
from PySide6.QtGui import QPainter, QPalette
from PySide6.QtWidgets import QApplication, QStyle, QStyledItemDelegate, QStyleOptionViewItem

from kiraos_desktop.core.skills.problems import AGENT_FORMAT

from .skill_list import FORMAT_ROLE

_GAP = 6
_PAD = 5


class AgentBadgeDelegate(QStyledItemDelegate):
    """The name column: the name (elided when narrow) and, for an Agent Skills folder, a pill."""

    def __init__(self, colors, parent=None):
        super().__init__(parent)
        self._colors = colors

    def set_colors(self, colors) -> None:
        self._colors = colors

    def badge_text(self) -> str:
        return self.tr("Agent Skills")

    def _badge_width(self, option: QStyleOptionViewItem) -> int:
        return self._badge_width_for(option.fontMetrics)

    def fit(self, text: str, width: int, metrics, mode=Qt.TextElideMode.ElideRight) -> tuple[str, bool]:
        """The name as shown in `width` pixels and whether the badge goes beside it. The name comes
        first: when the badge would leave it fewer than a few characters, the badge is left out
        (the tooltip still names the format)."""
        beside = width - self._badge_width_for(metrics) - _GAP
        if metrics.horizontalAdvance(text) <= beside or beside >= metrics.horizontalAdvance("M" * 6):
            return metrics.elidedText(text, mode, max(0, beside)), True
        return metrics.elidedText(text, mode, width), False

    def _badge_width_for(self, metrics) -> int:
        return metrics.horizontalAdvance(self.badge_text()) + 2 * _PAD

    def sizeHint(self, option: QStyleOptionViewItem, index: QModelIndex) -> QSize:  # noqa: N802
        size = super().sizeHint(option, index)
        if index.data(FORMAT_ROLE) == AGENT_FORMAT:
            size.setWidth(size.width() + _GAP + self._badge_width(option))
        return size

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: QModelIndex) -> None:
        if index.data(FORMAT_ROLE) != AGENT_FORMAT:
            super().paint(painter, option, index)
            return
        opt = QStyleOptionViewItem(option)
        self.initStyleOption(opt, index)
        text, opt.text = opt.text, ""
        widget = opt.widget
        style = widget.style() if widget is not None else QApplication.style()
        style.drawControl(QStyle.ControlElement.CE_ItemViewItem, opt, painter, widget)
        badge_width = self._badge_width(opt)
        text_rect = style.subElementRect(QStyle.SubElement.SE_ItemViewItemText, opt, widget)
        margin = style.pixelMetric(QStyle.PixelMetric.PM_FocusFrameHMargin, None, widget) + 1
        text_rect.setLeft(text_rect.left() + margin)
        elided, with_badge = self.fit(text, text_rect.width(), opt.fontMetrics, opt.textElideMode)
        selected = bool(opt.state & QStyle.StateFlag.State_Selected)
        painter.save()
        painter.setPen(opt.palette.color(QPalette.ColorRole.HighlightedText if selected else QPalette.ColorRole.Text))
        painter.drawText(text_rect, int(Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft), elided)
        if not with_badge:
            painter.restore()
            return
        height = opt.fontMetrics.height() + 2
        left = text_rect.left() + opt.fontMetrics.horizontalAdvance(elided) + _GAP
        badge = QRect(left, opt.rect.center().y() - height // 2 + 1, badge_width, height)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(self._colors.declared_bg)
        painter.drawRoundedRect(badge, height / 2, height / 2)
        painter.setPen(self._colors.declared_fg)
        painter.drawText(badge, int(Qt.AlignmentFlag.AlignCenter), self.badge_text())
        painter.restore()
