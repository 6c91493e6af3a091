"""Translations: complete catalogues, Chinese under a Chinese locale, and a live language switch."""
from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtWidgets import QAbstractButton, QComboBox, QLineEdit, QTabWidget

from kiraos_desktop.core.settings import SettingsError
from kiraos_desktop.ui.i18n import language_manager, resolve_language, system_language
from kiraos_desktop.ui.main_window import PAGE_USERS
from ui_helpers import OFFSCREEN_NOTE, ScriptedPrompts, seed, shown_window, ui_settings

pytestmark = pytest.mark.qt_log_ignore(OFFSCREEN_NOTE)
REPO = Path(__file__).resolve().parent.parent


def _load_tool():
    spec = importlib.util.spec_from_file_location("kiraos_i18n_tool", REPO / "tools" / "i18n.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def tool():
    return _load_tool()


# ---- the catalogues ------------------------------------------------------------------------

def test_every_ui_string_is_translated_and_nothing_vanished(tool):
    """Re-runs lupdate on the explicit file list: new strings, unfinished and obsolete entries all fail."""
    problems = tool.check()
    assert problems == [], ("translations out of date (see tools/i18n.py: run `python tools/i18n.py update`, "
                            "translate, commit):\n" + "\n".join(problems))


def test_the_file_list_holds_the_ui_modules(tool):
    files = {path.relative_to(REPO).as_posix() for path in tool.source_files()}
    assert "kiraos_desktop/ui/main_window.py" in files
    assert "kiraos_desktop/ui/users/history_model.py" in files
    assert not any(name.startswith(("kiraos_desktop/core/", "kiraos_desktop/api/")) for name in files)


def _check_with(tool, monkeypatch, extra: Path | None = None, drop: str | None = None) -> list[str]:
    files = [path for path in tool.source_files() if not (drop and path.name == drop)]
    monkeypatch.setattr(tool, "source_files", lambda: files + ([extra] if extra else []))
    return tool.check()


def test_the_check_fails_on_a_new_untranslated_string(tool, monkeypatch, tmp_path):
    extra = tmp_path / "new_widget.py"
    extra.write_text("from PySide6.QtWidgets import QWidget\n\n\nclass NewWidget(QWidget):\n"
                     "    def title(self):\n        return self.tr('A brand-new label')\n", encoding="utf-8")
    problems = _check_with(tool, monkeypatch, extra=extra)
    assert any("A brand-new label" in line and "unfinished" in line for line in problems), problems


def test_the_check_fails_on_a_vanished_string(tool, monkeypatch):
    problems = _check_with(tool, monkeypatch, drop="find_bar.py")
    assert any("[FindBar]" in line and "no longer in the source" in line for line in problems), problems


def test_the_check_fails_on_an_f_string_inside_tr(tool, monkeypatch, tmp_path):
    extra = tmp_path / "bad_widget.py"
    extra.write_text("from PySide6.QtWidgets import QWidget\n\n\nclass BadWidget(QWidget):\n"
                     "    def title(self, n):\n        return self.tr(f'{n} things')\n", encoding="utf-8")
    problems = _check_with(tool, monkeypatch, extra=extra)
    assert any("f-string inside tr()" in line for line in problems), problems


def test_the_check_fails_on_a_lost_placeholder_or_accelerator(tool, tmp_path):
    ts = tmp_path / "x.ts"
    ts.write_text("""<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS><TS version="2.1" language="zh_CN"><context><name>C</name>
<message><source>Saved {name}</source><translation>已保存</translation></message>
<message><source>&amp;File</source><translation>文件</translation></message>
<message><source>Fine {n}</source><translation>好 {n}</translation></message>
</context></TS>""", encoding="utf-8")
    problems = tool.message_problems(ts)
    assert len(problems) == 2
    assert "placeholders" in problems[0] and "accelerator" in problems[1]


# ---- choosing the language -------------------------------------------------------------------

def test_language_follows_the_locale_unless_set():
    from PySide6.QtCore import QLocale

    assert system_language(QLocale("zh_CN")) == "zh_CN"
    assert system_language(QLocale("zh_TW")) == "zh_CN"  # the nearest catalogue we have
    assert system_language(QLocale("de_DE")) == "en"
    assert resolve_language("system", QLocale("zh_CN")) == "zh_CN"
    assert resolve_language("en", QLocale("zh_CN")) == "en"
    assert resolve_language("zh_CN", QLocale("en_US")) == "zh_CN"


def test_the_language_setting_is_checked(engine):
    with pytest.raises(SettingsError, match="language"):
        engine.settings.replace(language="fr")
    assert engine.settings.language == "system"


_ZH_SCRIPT = r"""
import json, sys
from kiraos_desktop.core.engine import Engine
from kiraos_desktop.ui.app import ensure_application
from kiraos_desktop.ui.i18n import apply_language
from kiraos_desktop.ui.main_window import MainWindow
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QMessageBox

engine = Engine.open(data_dir=sys.argv[1])
app = ensure_application()
language = apply_language(engine.settings.language)
window = MainWindow(engine, None, QSettings(sys.argv[1] + "/ui.ini", QSettings.Format.IniFormat))
box = QMessageBox(QMessageBox.Icon.Question, "t", "q", QMessageBox.StandardButton.Ok | QMessageBox.StandardButton.Cancel)
print(json.dumps({"language": language, "menus": [a.text() for a in window.menuBar().actions()],
                  "pages": [window.sidebar.item(i).text() for i in range(window.sidebar.count())],
                  "buttons": sorted(b.text() for b in box.buttons())}, ensure_ascii=False))
window.shutdown()
engine.close()
"""


def test_a_chinese_locale_gives_chinese_menus_and_standard_buttons(tmp_path):
    """What `LANG=zh_CN.UTF-8 kiraos-desktop` shows: our catalogue and Qt's own (qtbase_zh_CN)."""
    env = {k: v for k, v in os.environ.items() if k not in ("LC_ALL", "LC_MESSAGES", "LANGUAGE")}
    env.update(LANG="zh_CN.UTF-8", QT_QPA_PLATFORM="offscreen", PYTHONPATH=str(REPO))
    result = subprocess.run([sys.executable, "-c", _ZH_SCRIPT, str(tmp_path / "data")], capture_output=True,
                            text=True, timeout=120, env=env, cwd=REPO)
    assert result.returncode == 0, result.stderr
    shown = json.loads(result.stdout.strip().splitlines()[-1])
    assert shown["language"] == "zh_CN"
    assert shown["menus"][0] == "文件(&F)" and "帮助(&H)" in shown["menus"]
    assert shown["pages"][:2] == ["概览", "用户"]
    assert shown["buttons"] == sorted(["确定", "取消"])


# ---- switching while the window is open ------------------------------------------------------

@pytest.fixture
def engine(engine):
    seed(engine, users=2)
    return engine


@pytest.fixture
def window(qtbot, engine, tmp_path):
    with shown_window(qtbot, engine, tmp_path, ScriptedPrompts()) as window:
        yield window
    language_manager().clear()  # later tests expect the source texts


def test_switching_the_language_retitles_the_open_window(qtbot, window, engine):
    window.show_page(PAGE_USERS)
    assert window.menuBar().actions()[0].text() == "&File"
    model = window.users_page.view.model()
    with qtbot.waitSignal(model.headerDataChanged, timeout=5000):
        engine.update_settings(engine.settings.replace(language="zh_CN"))
    qtbot.waitUntil(lambda: window.menuBar().actions()[0].text() == "文件(&F)", timeout=5000)
    assert window.sidebar.item(PAGE_USERS).text() == "用户"
    assert model.headerData(0, Qt.Orientation.Horizontal) == "用户"
    assert window.windowTitle() == "KiraOS Desktop"
    # Texts the pages set once when they were built: labels, check boxes, tabs, placeholders, buttons.
    assert window.users_page.content_box.text() == "同时搜索键、值和事件"
    tabs = window.users_page.findChild(QTabWidget)
    assert [tabs.tabText(i) for i in range(tabs.count())] == ["画像", "事件", "上下文", "变更记录"]
    assert window.users_page.findChild(QLineEdit, "userSearch").placeholderText().startswith("搜索用户 ID")
    assert "新建" in [button.text() for button in window.skills_page.findChildren(QAbstractButton)]
    assert window.overview_page.feed_title.text() == "最近变更"
    assert window.undo_action.text() == "撤销" and window.undo_action.shortcut().toString() == "Ctrl+Z"
    assert [action.text() for action in window.edit_menu.actions()][:2] == ["撤销", "重做"]
    with qtbot.waitSignal(model.headerDataChanged, timeout=5000):
        engine.update_settings(engine.settings.replace(language="en"))
    qtbot.waitUntil(lambda: window.menuBar().actions()[0].text() == "&File", timeout=5000)
    assert window.sidebar.item(PAGE_USERS).text() == "Users"
    assert window.users_page.content_box.text() == "Also search in keys, values and events"
    assert [tabs.tabText(i) for i in range(tabs.count())] == ["Profile", "Events", "Context", "History"]
    assert QCoreApplication.translate("History", "%n entries", "", 1) == "1 entry"  # English plural forms


def test_the_settings_dialog_offers_the_language_and_applies_it(qtbot, window, engine):
    from kiraos_desktop.ui.settings_dialog import SettingsDialog

    dialog = SettingsDialog(engine, window)
    qtbot.addWidget(dialog)
    combo = dialog.findChild(QComboBox, "language")
    assert [combo.itemData(i) for i in range(combo.count())] == ["system", "en", "zh_CN"]
    assert combo.currentData() == "system"
    combo.setCurrentIndex(combo.findData("zh_CN"))
    dialog.accept()
    assert engine.settings.language == "zh_CN"
    assert json.loads(engine.paths.settings_file.read_text(encoding="utf-8"))["language"] == "zh_CN"
    qtbot.waitUntil(lambda: window.help_menu.title() == "帮助(&H)", timeout=5000)


def test_only_texts_of_a_widgets_own_context_are_swapped(qtbot):
    """A label showing data that happens to equal a UI string elsewhere keeps its text."""
    from PySide6.QtWidgets import QLabel, QWidget

    from kiraos_desktop.ui.retranslate import TextSwap, messages, swap_static_texts

    class UsersModel(QWidget):  # a kiraos class name: its context holds "User"
        __module__ = "kiraos_desktop.ui.fake"

    owner = UsersModel()
    qtbot.addWidget(owner)
    own = QLabel("User", owner)
    plain = QWidget()
    qtbot.addWidget(plain)
    data = QLabel("User", plain)  # e.g. a user id shown in a widget with no catalogue context
    swap_static_texts(owner, TextSwap(messages("en"), messages("zh_CN")))
    swap_static_texts(plain, TextSwap(messages("en"), messages("zh_CN")))
    assert own.text() == "用户"
    assert data.text() == "User"


def test_language_and_screenshot_size_options():
    from kiraos_desktop.cli import build_parser

    args = build_parser().parse_args(["--language", "zh_CN", "--screenshot", "out", "--screenshot-size", "1024x700"])
    assert (args.language, args.screenshot_size) == ("zh_CN", (1024, 700))
    assert build_parser().parse_args([]).screenshot_size == (1280, 800)
    for bad in (["--language", "fr"], ["--screenshot-size", "1024"], ["--screenshot-size", "10x10"]):
        with pytest.raises(SystemExit) as exit_info:
            build_parser().parse_args(bad)
        assert exit_info.value.code == 2


def test_screenshots_in_chinese_at_another_size(qtbot, qapp, engine, tmp_path):
    import struct
    from types import SimpleNamespace

    from kiraos_desktop.ui.app import AppController
    from kiraos_desktop.ui.i18n import apply_language
    from kiraos_desktop.ui.screenshot import take_screenshots

    apply_language("zh_CN")
    controller = AppController(engine, SimpleNamespace(port=0), ui_settings=ui_settings(tmp_path))
    out = tmp_path / "shots"
    try:
        assert controller.window.menuBar().actions()[0].text() == "文件(&F)"
        assert take_screenshots(qapp, controller, str(out), (1024, 700)) == 0
    finally:
        controller.shutdown()
        language_manager().clear()
    with open(out / "02-users-profile.png", "rb") as handle:
        assert struct.unpack(">II", handle.read(24)[16:24]) == (1024, 700)


def test_the_tray_menu_follows_a_language_switch(qtbot, engine, tmp_path, monkeypatch):
    """The tray is no widget (Qt sends it no LanguageChange): it follows the window."""
    from types import SimpleNamespace

    from PySide6.QtWidgets import QSystemTrayIcon

    from kiraos_desktop.ui.app import AppController

    monkeypatch.setattr(QSystemTrayIcon, "isSystemTrayAvailable", staticmethod(lambda: True))
    monkeypatch.setattr(QSystemTrayIcon, "show", lambda self: None)  # the offscreen platform has no tray
    controller = AppController(engine, SimpleNamespace(port=0, host="127.0.0.1"), ui_settings=ui_settings(tmp_path))
    controller.use_desktop_close()
    window = controller.window
    qtbot.addWidget(window)
    try:
        qtbot.waitUntil(lambda: window.server_state.state == "running", timeout=15000)
        texts = lambda: [a.text() for a in controller.tray.menu.actions() if not a.isSeparator()]  # noqa: E731
        assert texts()[0] == "Show window" and texts()[1].startswith("API running at")
        engine.update_settings(engine.settings.replace(language="zh_CN"))
        qtbot.waitUntil(lambda: texts()[1].startswith("API 运行于"), timeout=5000)
        assert texts()[0] == "显示窗口"
    finally:
        controller.shutdown()
        language_manager().clear()
