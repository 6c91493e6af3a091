"""After a language switch: texts set once from tr() swapped to the new language, table headers asked again.

Widgets with texts that depend on state re-set them on QEvent.LanguageChange (MainWindow, OverviewPage,
HelpDialog). Texts that a widget set once in its constructor are swapped here instead, without a
retranslate method in every widget: a text equal to the old language's translation of a message, in
the translation context of the widget or one of its parents (the class whose self.tr() made it),
becomes that message's translation in the new language. Texts made by .format() from data are left
alone; their widgets refresh them with the data.
"""
from __future__ import annotations

import xml.etree.ElementTree as ET
from functools import lru_cache

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QComboBox,
    QGroupBox,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QTabWidget,
    QTableView,
    QTextEdit,
    QTreeView,
    QWidget,
)

from kiraos_desktop.catalogues import FOLDER, SOURCE_LANGUAGE, catalogue_stem
from kiraos_desktop.core.resources import resources_dir

Messages = dict[tuple[str, str], str]  # (context, source) -> text in one language
TRANSLATED = "zh_CN"  # the catalogue that holds every message (English has only plural forms)


@lru_cache(maxsize=4)
def messages(language: str) -> Messages:
    """Every singular message of the catalogue: its text in `language` (the source itself for English)."""
    ts = resources_dir() / FOLDER / f"{catalogue_stem(TRANSLATED)}.ts"
    if not ts.is_file():
        return {}
    table: Messages = {}
    for context in ET.parse(ts).getroot().iter("context"):
        name = context.findtext("name") or ""
        for message in context.iter("message"):
            translation = message.find("translation")
            if message.get("numerus") == "yes" or translation is None or translation.get("type"):
                continue
            source = message.findtext("source") or ""
            table[(name, source)] = source if language == SOURCE_LANGUAGE else (translation.text or source)
    return table if language in (SOURCE_LANGUAGE, TRANSLATED) else {}


class TextSwap:
    """Maps a text of the old language, seen in given contexts, to the same message in the new language."""

    def __init__(self, old: Messages, new: Messages) -> None:
        self._new = new
        self._sources: dict[tuple[str, str], str] = {}  # (context, old text) -> source
        for (context, source), text in old.items():
            self._sources.setdefault((context, text), source)

    def __call__(self, text: str, contexts: list[str]) -> str | None:
        if not text:
            return None
        for context in contexts:
            source = self._sources.get((context, text))
            if source is not None:
                return self._new.get((context, source))
        return None


def _contexts(obj: QObject) -> list[str]:
    """Class names of the object and its parents, nearest first: where a self.tr() text may come from."""
    names: list[str] = []
    while obj is not None:
        for cls in type(obj).__mro__:
            if cls.__module__.startswith("kiraos_desktop") and cls.__name__ not in names:
                names.append(cls.__name__)
        obj = obj.parent()
    return names


def _swap(getter, setter, swap: TextSwap, contexts: list[str]) -> None:
    new = swap(getter(), contexts)
    if new is not None:
        setter(new)


def swap_static_texts(root: QWidget, swap: TextSwap) -> None:
    """Labels, buttons, group and tab titles, placeholders, tooltips, combo items and actions under root."""
    for widget in [root, *root.findChildren(QWidget)]:
        contexts = _contexts(widget)
        if not contexts:
            continue
        _swap(widget.toolTip, widget.setToolTip, swap, contexts)
        _swap(widget.windowTitle, widget.setWindowTitle, swap, contexts)
        if isinstance(widget, (QLabel, QAbstractButton)):
            _swap(widget.text, widget.setText, swap, contexts)
        elif isinstance(widget, QGroupBox):
            _swap(widget.title, widget.setTitle, swap, contexts)
        elif isinstance(widget, (QLineEdit, QPlainTextEdit, QTextEdit)):
            _swap(widget.placeholderText, widget.setPlaceholderText, swap, contexts)
        elif isinstance(widget, QTabWidget):
            for index in range(widget.count()):
                _swap(lambda: widget.tabText(index), lambda text: widget.setTabText(index, text), swap, contexts)
                _swap(lambda: widget.tabToolTip(index), lambda text: widget.setTabToolTip(index, text), swap,
                      contexts)
        elif isinstance(widget, QComboBox):
            for index in range(widget.count()):
                _swap(lambda: widget.itemText(index), lambda text: widget.setItemText(index, text), swap, contexts)
        for action in widget.actions():
            action_contexts = _contexts(action) or contexts
            _swap(action.text, action.setText, swap, action_contexts)
            _swap(action.toolTip, action.setToolTip, swap, action_contexts)
    for action in root.findChildren(QAction):
        _swap(action.text, action.setText, swap, _contexts(action))


def refresh_item_views(root: QWidget) -> None:
    """Every model shown under `root` re-announces its headers; every view repaints (cells re-read)."""
    announced = set()
    for view in root.findChildren(QAbstractItemView):
        model = view.model()
        header = view.horizontalHeader() if isinstance(view, QTableView) else \
            view.header() if isinstance(view, QTreeView) else None
        if model is not None and header is not None and header.count() and id(model) not in announced:
            announced.add(id(model))
            model.headerDataChanged.emit(Qt.Orientation.Horizontal, 0, header.count() - 1)
        view.viewport().update()
