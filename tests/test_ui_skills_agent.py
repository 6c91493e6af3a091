"""The Skills page with Agent Skills: Import/Export (dialogs, name clash, drop), the badge, SKILL.md editing."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from PySide6.QtCore import QMimeData, QPoint, Qt, QTimer, QUrl
from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import QApplication, QFileDialog, QInputDialog, QMessageBox
from skills_ref.validator import validate

from agent_skills_helpers import PDF_SKILL_MD, pdf_skill, snapshot, write_agent_skill, zip_folder
from kiraos_desktop.core.skills.problems import AGENT_FORMAT
from kiraos_desktop.ui.skills.prompts import Prompter
from kiraos_desktop.ui.skills.skill_list import FORMAT_ROLE, NAME
from ui_skills_helpers import OFFSCREEN_NOTE, make_page, page  # noqa: F401 (fixtures)

pytestmark = pytest.mark.qt_log_ignore(OFFSCREEN_NOTE)


def answer_dialogs(*steps):
    """Answer the next modal dialogs in order: each step is (dialog class, action(dialog)). Polls
    the running event loop for the active modal widget of that class."""
    pending = list(steps)
    timer = QTimer()
    timer.setInterval(20)

    def poll():
        if not pending:
            timer.stop()
            return
        kind, action = pending[0]
        widget = QApplication.activeModalWidget()
        if isinstance(widget, kind) and widget.isVisible():
            pending.pop(0)
            action(widget)

    timer.timeout.connect(poll)
    timer.start()
    return timer, pending


def click_button(text):
    def action(box: QMessageBox):
        for button in box.buttons():
            if button.text() == text:
                button.click()
                return
        raise AssertionError(f"no button {text!r} in {[b.text() for b in box.buttons()]}")
    return action


def type_name(name):
    def action(dialog: QInputDialog):
        dialog.setTextValue(name)
        dialog.accept()
    return action


def accept(box):
    box.accept()


@pytest.fixture
def real_page(qtbot, engine):
    widget = make_page(qtbot, engine)
    widget.prompter = Prompter(widget)
    widget.show()
    yield widget
    widget.dispose()


def test_import_button_file_dialog_then_clash_rename(qtbot, real_page, engine, tmp_path, monkeypatch):
    source = pdf_skill(tmp_path / "src")
    monkeypatch.setattr(QFileDialog, "getOpenFileName",
                        staticmethod(lambda *args, **kwargs: (str(source / "SKILL.md"), "")))
    qtbot.mouseClick(real_page.list_panel.import_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: real_page.editor.folder == engine.skills.skills_dir / "pdf-processing")
    skill = engine.skills.get("pdf-processing")
    assert skill is not None and skill.valid
    assert real_page.list_panel.current_folder() == "pdf-processing"

    timer, pending = answer_dialogs((QMessageBox, click_button("Rename…")), (QInputDialog, type_name("pdf_two")))
    qtbot.mouseClick(real_page.list_panel.import_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: engine.skills.get("pdf_two") is not None)
    assert not pending
    assert real_page.editor.folder.name == "pdf_two"
    assert (engine.skills.skills_dir / "pdf_two" / "references" / "REFERENCE.md").is_file()


def test_clash_replace_and_cancel(qtbot, real_page, engine, tmp_path):
    source = write_agent_skill(tmp_path / "src", "tarot_reading",
                               "---\nname: tarot_reading\ndescription: 新的塔罗\n---\n新的指令\n")
    before = snapshot(engine.skills.skills_dir)
    timer, pending = answer_dialogs((QMessageBox, click_button("Cancel")))
    assert real_page.import_skill(str(source)) is None
    assert not pending and snapshot(engine.skills.skills_dir) == before

    timer, pending = answer_dialogs((QMessageBox, click_button("Replace")))
    assert real_page.import_skill(str(source)) == "tarot_reading"
    assert not pending
    assert (engine.skills.skills_dir / "tarot_reading" / "instruction.md").read_text(encoding="utf-8") \
        .startswith("新的指令")
    assert real_page.editor.instruction_text().startswith("新的指令")
    kept = list((Path(real_page.backups_dir) / "deleted-skills").glob("tarot_reading-*"))
    assert len(kept) == 1 and (kept[0] / "manifest.json").is_file()  # the replaced version, kept
    assert "新的指令" not in (kept[0] / "instruction.md").read_text(encoding="utf-8")


def test_a_broken_archive_shows_an_error_and_changes_nothing(qtbot, real_page, engine, tmp_path):
    archive = tmp_path / "bad.zip"
    archive.write_bytes(b"PK\x03\x04 broken")
    before = snapshot(engine.skills.skills_dir)
    seen = []
    timer, pending = answer_dialogs((QMessageBox, lambda box: (seen.append(box.text()), box.accept())))
    assert real_page.import_skill(str(archive)) is None
    assert not pending and "could not be imported" in seen[0] and "bad.zip" in seen[0]
    assert snapshot(engine.skills.skills_dir) == before


def test_dropping_a_folder_or_archive_on_the_list_imports_it(qtbot, page, engine, tmp_path):
    source = pdf_skill(tmp_path / "src")
    archive = zip_folder(source, tmp_path / "pdf.skill")
    shutil.rmtree(source)
    view = page.list_panel.view
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(archive))])
    enter = QDragEnterEvent(QPoint(10, 10), Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton,
                            Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(view.viewport(), enter)
    assert enter.isAccepted()
    drop = QDropEvent(QPoint(10, 10), Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton,
                      Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(view.viewport(), drop)
    assert drop.isAccepted()
    qtbot.waitUntil(lambda: engine.skills.get("pdf-processing") is not None)
    qtbot.waitUntil(lambda: page.editor.folder is not None and page.editor.folder.name == "pdf-processing")

    other = QMimeData()
    other.setUrls([QUrl.fromLocalFile(str(tmp_path / "notes.txt"))])
    (tmp_path / "notes.txt").write_text("x")
    refused = QDragEnterEvent(QPoint(10, 10), Qt.DropAction.CopyAction, other, Qt.MouseButton.LeftButton,
                              Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(view.viewport(), refused)
    assert not refused.isAccepted()


def test_export_writes_a_valid_agent_skill_and_asks_before_replacing(qtbot, real_page, engine, tmp_path,
                                                                      monkeypatch):
    real_page.open_skill("tarot_reading", ask=False)
    monkeypatch.setattr(QFileDialog, "getExistingDirectory", staticmethod(lambda *a, **k: str(tmp_path / "out")))
    (tmp_path / "out").mkdir()
    messages = []
    timer, pending = answer_dialogs((QMessageBox, lambda box: (messages.append(box.text()), box.accept())))
    qtbot.mouseClick(real_page.list_panel.export_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not pending)
    target = tmp_path / "out" / "tarot-reading"
    assert validate(target) == [] and str(target) in messages[0]

    (target / "SKILL.md").write_text("changed", encoding="utf-8")
    timer, pending = answer_dialogs((QMessageBox, click_button("Cancel")))
    qtbot.mouseClick(real_page.list_panel.export_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not pending)
    assert (target / "SKILL.md").read_text(encoding="utf-8") == "changed"
    timer, pending = answer_dialogs((QMessageBox, click_button("Replace")), (QMessageBox, accept))
    qtbot.mouseClick(real_page.list_panel.export_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not pending)
    assert validate(target) == []


def test_agent_skills_have_a_badge(qtbot, engine, tmp_path):
    write_agent_skill(engine.skills.skills_dir, "pdf-processing", PDF_SKILL_MD)
    page = make_page(qtbot, engine)
    try:
        model = page.list_panel.model
        row = model.row_of_folder("pdf-processing")
        assert model.index(row, NAME).data(FORMAT_ROLE) == AGENT_FORMAT
        assert model.index(model.row_of_folder("tarot_reading"), NAME).data(FORMAT_ROLE) == "kiraos"
        assert "Agent Skills format" in model.index(row, NAME).data(Qt.ItemDataRole.ToolTipRole)
        view = page.list_panel.view
        delegate = view.itemDelegateForColumn(NAME)
        index = page.list_panel.proxy.mapFromSource(model.index(row, NAME))
        plain = page.list_panel.proxy.mapFromSource(model.index(model.row_of_folder("tarot_reading"), NAME))
        from PySide6.QtWidgets import QStyleOptionViewItem

        option = QStyleOptionViewItem()
        option.initFrom(view)
        assert delegate.sizeHint(option, index).width() > delegate.sizeHint(option, plain).width()
        page.show()
        assert not view.grab().isNull()  # paints the badge
    finally:
        page.dispose()


def test_editing_a_skill_md_skill_with_live_preview_and_lint(qtbot, engine):
    folder = write_agent_skill(engine.skills.skills_dir, "pdf-processing", PDF_SKILL_MD)
    page = make_page(qtbot, engine)
    try:
        page.open_skill("pdf-processing", ask=False)
        editor = page.editor
        assert editor.is_agent and not editor.manifest_editor.isVisibleTo(page)
        assert editor.instruction_text() == PDF_SKILL_MD
        assert "request" in page.workbench.args_form.arguments() or editor.manifest()["parameters"]
        qtbot.waitUntil(lambda: "# PDF processing" in page.workbench.preview.text())

        editor.instruction_edit.setPlainText(PDF_SKILL_MD.replace("# PDF processing", "# PDF handling")
                                             .replace("name: pdf-processing", "name: PDF_processing"))
        qtbot.waitUntil(lambda: "# PDF handling" in page.workbench.preview.text())
        messages = [p.message for p in page.workbench.problems.model.problems()]
        assert any("must be lowercase" in m for m in messages)
        assert any("folder is called 'pdf-processing'" in m for m in messages)

        editor.instruction_edit.setPlainText(PDF_SKILL_MD.replace("# PDF processing", "# PDF handling"))
        qtbot.waitUntil(lambda: page.workbench.problems.model.problems() == [])
        assert page.save()
        assert (folder / "SKILL.md").read_text(encoding="utf-8").startswith("---\nname: pdf-processing")
        assert "# PDF handling" in engine.tools.call("pdf-processing", "u1", {}).content
        assert validate(folder) == []
    finally:
        page.dispose()


def test_a_name_that_cannot_be_a_tool_name_is_asked_for(qtbot, page, engine, tmp_path):
    source = write_agent_skill(tmp_path / "src", "数据", "---\nname: 数据\ndescription: 数据分析\n---\n分析。\n")
    page.prompter.names = ["data_tools"]
    assert page.import_skill(str(source)) == "data_tools"
    assert ("name", "Import skill", "imported_skill") in page.prompter.asked
    assert engine.skills.get("data_tools").description == "数据分析"
    before = snapshot(engine.skills.skills_dir)
    assert page.import_skill(str(source)) is None  # asked again, cancelled: nothing written
    assert snapshot(engine.skills.skills_dir) == before


def test_duplicate_and_rename_are_off_for_agent_skills(qtbot, engine):
    write_agent_skill(engine.skills.skills_dir, "pdf-processing", PDF_SKILL_MD)
    page = make_page(qtbot, engine)
    try:
        panel = page.list_panel
        page.open_skill("pdf-processing", ask=False)
        assert not panel.duplicate_button.isEnabled() and not panel.rename_button.isEnabled()
        assert panel.delete_button.isEnabled() and panel.export_button.isEnabled()
        page.open_skill("tarot_reading", ask=False)
        assert panel.duplicate_button.isEnabled() and panel.rename_button.isEnabled()
    finally:
        page.dispose()


def test_the_window_says_when_an_import_changes_the_command(qtbot, page, engine, tmp_path):
    from kiraos_desktop.core.skills.agent_io import export_skill

    exported = export_skill(engine.skills.skills_dir / "tarot_reading", tmp_path / "out")
    page.prompter.clash_answers = ["rename"]
    page.prompter.names = ["a_tarot"]
    assert page.import_skill(str(exported)) == "a_tarot"
    info = [a for a in page.prompter.asked if a[0] == "info"]
    assert info and "/tarot" in info[0][2] and "/a_tarot" in info[0][2]
    assert engine.skills.match_command("/tarot x").skill == "tarot_reading"


def test_a_narrow_list_shows_the_name_before_the_badge(qtbot, engine):
    """At 1024x700 the name column is about as wide as the badge: the name must stay readable."""
    write_agent_skill(engine.skills.skills_dir, "pdf-processing", PDF_SKILL_MD)
    page = make_page(qtbot, engine)
    try:
        view = page.list_panel.view
        delegate = view.itemDelegateForColumn(NAME)
        metrics = view.fontMetrics()
        narrow = metrics.horizontalAdvance(delegate.badge_text()) + 20
        shown, badge = delegate.fit("pdf-processing", narrow, metrics)
        assert not badge and shown.startswith("pdf-")
        shown, badge = delegate.fit("pdf-processing", 400, metrics)
        assert badge and shown == "pdf-processing"
    finally:
        page.dispose()
