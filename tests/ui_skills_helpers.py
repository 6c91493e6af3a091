"""Fixtures and fakes shared by the Skills page tests (page, memory to show, scripted prompts)."""
from __future__ import annotations

import pytest


#: The offscreen platform's harmless note when a top-level window is shown.
OFFSCREEN_NOTE = "This plugin does not support propagateSizeHints"


class FakePrompter:
    """Answers the page's questions from a script and records what was asked."""

    def __init__(self):
        self.asked: list[tuple] = []
        self.unsaved_answer = "cancel"
        self.delete_answer = False
        self.reload_answer = False
        self.names: list[str | None] = []
        self.errors: list[tuple[str, str]] = []
        self.clash_answers: list[str] = []
        self.overwrite_answer = False
        self.files: list[str] = []
        self.folders: list[str] = []
        self.save_invalid_answer = True

    def unsaved_changes(self, skill):
        self.asked.append(("unsaved", skill))
        return self.unsaved_answer

    def save_invalid(self, skill, errors):
        self.asked.append(("save_invalid", skill, errors))
        return self.save_invalid_answer

    def confirm_delete(self, skill, backups):
        self.asked.append(("delete", skill, backups))
        return self.delete_answer

    def reload_changed_files(self, skill):
        self.asked.append(("reload", skill))
        return self.reload_answer

    def ask_name(self, title, label, text):
        self.asked.append(("name", title, text))
        return self.names.pop(0) if self.names else None

    def error(self, title, text):
        self.errors.append((title, text))

    def name_clash(self, skill):
        self.asked.append(("clash", skill))
        return self.clash_answers.pop(0) if self.clash_answers else "cancel"

    def confirm_overwrite(self, title, path):
        self.asked.append(("overwrite", path))
        return self.overwrite_answer

    def open_file(self, title, start, filters):
        self.asked.append(("open", title))
        return self.files.pop(0) if self.files else ""

    def choose_folder(self, title, start):
        self.asked.append(("folder", title))
        return self.folders.pop(0) if self.folders else ""

    def info(self, title, text):
        self.asked.append(("info", title, text))


def remember(engine, user="u1"):
    """Give `user` some memory so that `<context>` appears in skill results."""
    engine.store.set_profile(user, "昵称", "小明", actor="gui", confidence=0.9)
    engine.store.set_profile(user, "城市", "北京", actor="gui", confidence=0.8, category="basic")
    engine.store.add_event(user, "完成半马", actor="gui")


def make_page(qtbot, engine, **kwargs):
    from kiraos_desktop.ui.skills import SkillsPage
    from kiraos_desktop.ui.store_signals import ChangeCoalescer, StoreSignals

    # As the window gives it: the store's change events, coalesced.
    signals = StoreSignals(engine.store.changes)
    coalescer = ChangeCoalescer(signals)
    page = SkillsPage(engine.skills, engine.store, coalescer.triggered, engine.context, engine, **kwargs)
    signals.setParent(page)
    coalescer.setParent(page)
    page.destroyed.connect(signals.detach)
    qtbot.addWidget(page)
    page.prompter = FakePrompter()
    page.resize(1280, 800)
    return page


@pytest.fixture
def page(qtbot, engine):
    widget = make_page(qtbot, engine)
    yield widget
    widget.dispose()
