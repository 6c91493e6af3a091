"""The window's view of a KiraOS 3.x tree, through a running event loop: list, filter, search, an entity, what the bot sees."""
from __future__ import annotations

import pytest

from kiraos_desktop.core.storage.tree import open_tree
from kiraos_desktop.core.storage.tree.layout import EntityRef
from kiraos_desktop.ui.entities.page import EntitiesPage
from kiraos_desktop.ui.entities.window import TreeWindow
from tree_fixtures import indexed_tree

# The offscreen platform says so when a top-level widget's size hints change: nothing of ours.
pytestmark = pytest.mark.qt_log_ignore("This plugin does not support propagateSizeHints")


@pytest.fixture
def kira(tmp_path):
    return indexed_tree(tmp_path / "kira")


@pytest.fixture
def page(qtbot, kira):
    page = EntitiesPage(open_tree(kira))
    qtbot.addWidget(page)
    page.resize(1200, 700)
    page.show()
    with qtbot.waitSignal(page.listed, timeout=10000):
        page.reload()
    return page


def listed(page) -> list[str]:
    return [page.model.row_at(row).ref.label() for row in range(page.model.rowCount())]


def choose(page, label: str) -> None:
    for row in range(page.proxy.rowCount()):
        source = page.proxy.mapToSource(page.proxy.index(row, 0)).row()
        if page.model.row_at(source).ref.label() == label:
            page.view.setCurrentIndex(page.proxy.index(row, 0))
            return
    raise AssertionError(f"{label} is not listed")


def test_the_models_are_sound(qtmodeltester, page):
    qtmodeltester.check(page.model)
    choose(page, "user:qq:10001")
    for model in (page.detail.profile_model, page.detail.memory_model, page.detail.archived_model,
                  page.detail.problem_model):
        qtmodeltester.check(model)


def test_every_entity_is_listed_with_its_counts_and_the_type_filter_narrows_it(qtbot, page):
    assert listed(page)[:2] == ["user:qq:10001", "user:qq:10002"] and listed(page)[-2:] == ["global", "self"]
    assert page.status.text() == "9 entities"
    with qtbot.waitSignal(page.listed, timeout=10000):
        page.kind.setCurrentIndex(page.kind.findData("group"))
    assert listed(page) == ["group:qq:g1"]


def test_search_finds_chinese_words_in_facts_and_profiles(qtbot, page):
    with qtbot.waitSignal(page.listed, timeout=10000):
        page.search.setText("吉他")
    assert listed(page) == ["user:qq:10001", "group:qq:g1"]
    with qtbot.waitSignal(page.listed, timeout=10000):
        page.search.setText("没有这个词")
    assert listed(page) == [] and page.empty.isVisible() and "No entity matches" in page.empty.text()


def test_an_entity_shows_profile_rows_sorted_memories_archive_and_problems(qtbot, page):
    choose(page, "user:qq:10001")
    detail = page.detail
    profile = [detail.profile_model.row_at(n) for n in range(detail.profile_model.rowCount())]
    assert ("traits[0]", "爱猫") in profile and ("preferences.饮料", "奶茶") in profile
    view = detail.memory_view
    first = view.model().index(0, 0).data()
    assert first == "小明最近在学吉他"  # sorted by importance, the highest first (7)
    tip = view.model().index(0, 0).data(__import__("PySide6.QtCore", fromlist=["Qt"]).Qt.ItemDataRole.ToolTipRole)
    assert "learning_guitar" in tip and "qq:pm:10001" in tip  # id and session, no columns of their own
    assert detail.archived_model.rowCount() == 1 and detail.tabs.tabText(3) == "Problems"
    choose(page, "user:qq:10002")
    assert detail.problem_model.rowCount() == 3 and detail.tabs.tabText(3) == "Problems (3)"


def test_what_the_bot_sees_for_a_message(qtbot, page):
    choose(page, "user:qq:10001")
    detail = page.detail
    detail.message.setText("吉他")
    qtbot.mouseClick(detail.show_button, __import__("PySide6.QtCore", fromlist=["Qt"]).Qt.MouseButton.LeftButton)
    text = detail.injection.toPlainText()
    assert text.startswith("[用户 qq:10001 画像]") and "- [fact] [hobby] 小明最近在学吉他" in text
    choose(page, "group:qq:g1")
    assert not detail.show_button.isEnabled()  # the plugin injects users' memory only


def test_the_plugins_new_file_appears_after_reload(qtbot, page, kira):
    from tree_fixtures import entity_dir, write_memory

    write_memory(entity_dir(kira / "memory", "channel", "discord:c1") / "facts", "rules", "频道规则：不许刷屏")
    with qtbot.waitSignal(page.listed, timeout=10000):
        qtbot.keyClick(page, __import__("PySide6.QtCore", fromlist=["Qt"]).Qt.Key.Key_F5)
    row = [page.model.row_at(n) for n in range(page.model.rowCount()) if page.model.row_at(n).ref.kind == "channel"][0]
    assert row.counts["facts"] == 1


@pytest.fixture
def window(qtbot, kira, tmp_path):
    from kiraos_desktop.core.storage.tree.edits import TreeEdits
    from ui_helpers import ScriptedPrompts

    from kiraos_desktop.ui.i18n import apply_language, language_manager

    apply_language("en")  # its plural forms ("2 memory files"), as the app installs them at start
    window = TreeWindow(open_tree(kira), str(kira), edits=TreeEdits(str(kira / "memory"), tmp_path / "journal.jsonl"),
                        prompts=ScriptedPrompts(confirm=True))
    qtbot.addWidget(window)
    with qtbot.waitSignal(window.page.listed, timeout=10000):
        window.show()
    choose(window.page, "user:qq:10001")
    yield window
    language_manager().clear()


def memory_texts(page) -> list[str]:
    model = page.detail.memory_model
    return sorted(model.row_at(n).text for n in range(model.rowCount()))


def select(view, model, text: str) -> None:
    for row in range(view.model().rowCount()):
        if model.row_at(view.model().mapToSource(view.model().index(row, 0)).row()).text == text:
            view.setCurrentIndex(view.model().index(row, 0))
            return
    raise AssertionError(f"{text} is not listed")


def test_the_window_adds_edits_archives_restores_and_undoes(qtbot, window, kira):
    from kiraos_desktop.ui.entities.memory_dialog import MemoryValues

    page, detail = window.page, window.page.detail
    assert str(kira) in window.windowTitle() and "undone" in window.note.text()
    answers = iter([MemoryValues("小明养了一只猫", 8, ["宠物"], False),
                    MemoryValues("小明养了两只猫", 9, ["宠物"], False)])
    window.edit_actions.ask = lambda *args: next(answers)
    detail.add_button.click()  # written on a task thread; the window reads the entity again
    qtbot.waitUntil(lambda: "小明养了一只猫" in memory_texts(page), timeout=5000)
    select(detail.memory_view, detail.memory_model, "小明养了一只猫")
    detail.edit_button.click()
    qtbot.waitUntil(lambda: "小明养了两只猫" in memory_texts(page), timeout=5000)
    assert "两只猫" in open_tree(kira).injection(EntityRef("user", "qq:10001"), "猫").text  # the bot recalls it
    select(detail.memory_view, detail.memory_model, "小明最近在学吉他")
    detail.archive_button.click()
    qtbot.waitUntil(lambda: "小明最近在学吉他" not in memory_texts(page), timeout=5000)
    assert detail.archived_model.rowCount() == 2
    window.undo_action.trigger()  # Ctrl+Z: the archive undone
    qtbot.waitUntil(lambda: "小明最近在学吉他" in memory_texts(page), timeout=5000)
    window.redo_action.trigger()
    qtbot.waitUntil(lambda: "小明最近在学吉他" not in memory_texts(page), timeout=5000)
    select(detail.archived_view, detail.archived_model, "小明最近在学吉他")
    detail.restore_button.click()
    qtbot.waitUntil(lambda: "小明最近在学吉他" in memory_texts(page), timeout=5000)
    history = [detail.history_model.row_at(n).change.action for n in range(detail.history_model.rowCount())]
    assert history == ["restore", "revert", "revert", "archive", "edit", "add"]
    # Issue 50: the Memory column showed file ids (hash-suffixed for some); it shows the memory's text.
    shown = [detail.history_model.index(n, 4).data() for n in range(detail.history_model.rowCount())]
    assert shown[0] == "小明最近在学吉他" and shown[-2:] == ["小明养了两只猫", "小明养了一只猫"]


def test_delete_for_good_asks_first_and_the_history_reverts_it(qtbot, window, kira):
    detail = window.page.detail
    archived = kira / "memory" / "archive" / "user__qq%3A10001__facts__old_city.toml"
    window.edit_actions.prompts.answer = False
    select(detail.archived_view, detail.archived_model, "小明以前住在北京")
    detail.delete_button.click()
    assert archived.exists() and window.edit_actions.prompts.asked  # asked, and told no
    window.edit_actions.prompts.answer = True
    detail.delete_button.click()
    qtbot.waitUntil(lambda: not archived.exists(), timeout=5000)
    qtbot.waitUntil(lambda: detail.history_model.rowCount() == 1, timeout=5000)
    detail.history_view.setCurrentIndex(detail.history_model.index(0, 0))
    detail.revert_button.click()
    qtbot.waitUntil(archived.exists, timeout=5000)


def test_a_refused_edit_is_shown_and_writes_nothing(qtbot, window, kira):
    from kiraos_desktop.ui.entities.memory_dialog import MemoryValues

    path = kira / "memory" / "entities" / "user_qq%3A10001" / "facts" / "learning_guitar.toml"
    path.write_bytes(b"\xff broken")
    from kiraos_desktop.core.storage.tree.files import TreeMemory

    window.edit_actions.ask = lambda *args: MemoryValues("新的", 5, [], False)
    broken = TreeMemory("learning_guitar", "facts", "fact", "x", 5, ())  # as listed before the file broke
    assert window.edit_actions.edit(EntityRef("user", "qq:10001"), broken) is None
    assert window.edit_actions.prompts.errors and "cannot be read" in window.edit_actions.prompts.errors[-1]
    assert path.read_bytes() == b"\xff broken" and window.undo_stack.count() == 0


def test_the_window_opens_on_a_3x_folder_from_the_command_line(qtbot, kira, tmp_path):
    """`kiraos-desktop --kira-data DIR` on 3.x data opened nothing but an error before: now the tree window."""
    from kiraos_desktop.cli import main

    shots = tmp_path / "shots"
    assert main(["--kira-data", str(kira), "--screenshot", str(shots), "--language", "en"]) == 0
    assert (shots / "entities.png").stat().st_size > 10_000


def test_a_tree_window_opened_beside_the_main_one_closes_its_engine_with_it(qtbot, kira, tmp_path):
    """File > Open KiraOS data folder on 3.x data: the choice goes to the app (which opens the engine
    and, its memory being a tree, this window: test_ui_main_window); the window owns that engine."""
    from PySide6.QtWidgets import QApplication

    from kiraos_desktop.core.engine import Engine
    from kiraos_desktop.core.paths import resolve_paths
    from kiraos_desktop.ui import file_actions
    from kiraos_desktop.ui.entities.window import TreeWindow, open_tree_window
    from ui_helpers import ScriptedPrompts

    prompts = ScriptedPrompts(folder=str(kira))
    assert file_actions.choose_kira_data(None, prompts, resolve_paths(data_dir=tmp_path / "d")) == {"kira_data": str(kira)}
    engine = Engine.open(kira_data=kira)
    closed = []
    real_close = engine.close
    engine.close = lambda: closed.append(True) or real_close()
    window = open_tree_window(engine)
    assert window in [w for w in QApplication.topLevelWidgets() if isinstance(w, TreeWindow) and w.isVisible()]
    qtbot.waitSignal(window.page.listed, timeout=10000)
    assert str(kira.resolve()) in window.windowTitle() and prompts.errors == []
    window.close()  # deleted on close: its engine closes when it is gone
    qtbot.waitUntil(lambda: closed == [True], timeout=5000)


def test_the_plugins_writes_appear_within_a_second_without_a_reload(qtbot, page, kira):
    """The plugin writes a file by a rename and indexes it: the page sees it on its next look (WATCH_MS)."""
    import os

    from tree_fixtures import entity_dir, memory_toml

    choose(page, "user:qq:10001")
    facts = entity_dir(kira / "memory", "user", "qq:10001") / "facts"
    temporary = facts / "new_pet.toml.tmp"
    temporary.write_text(memory_toml("new_pet", "小明新养了一只橘猫", importance=6), encoding="utf-8")
    os.replace(temporary, facts / "new_pet.toml")  # as the plugin writes
    with qtbot.waitSignal(page.listed, timeout=3000):
        pass
    assert "小明新养了一只橘猫" in [page.detail.memory_model.row_at(n).text
                                 for n in range(page.detail.memory_model.rowCount())]
    first = [page.model.row_at(n) for n in range(page.model.rowCount())][0]
    assert first.counts["facts"] == 3


def test_closing_the_window_during_a_long_search_is_safe(qtbot, kira, monkeypatch):
    import time

    from kiraos_desktop.ui.tasks import TaskRunner

    tree = open_tree(kira)
    real = tree.entities

    def slow(**kwargs):
        time.sleep(0.5)
        return real(**kwargs)

    monkeypatch.setattr(tree, "entities", slow)
    window = TreeWindow(tree, str(kira))
    window.show()
    runner = window.page._runner
    assert runner is not None and runner.is_running()
    window.close()
    window.deleteLater()
    qtbot.waitUntil(lambda: not runner.is_running() and runner not in TaskRunner._alive, timeout=5000)


def test_a_long_search_says_how_far_it_got_and_a_new_one_cancels_it(qtbot, kira):
    import threading

    from kiraos_desktop.ui.tasks import TaskRunner

    tree = open_tree(kira)
    real = tree.entities
    release = threading.Event()
    stopped = []

    def slow(**kwargs):
        progress = kwargs["progress"]

        def held(done, total):
            progress(done, total)
            if kwargs.get("search") == "吉他" and done == 2:
                release.wait(5)  # the page shows this much, then the search is replaced
        try:
            return real(**{**kwargs, "progress": held})
        except BaseException as exc:
            stopped.append(type(exc).__name__)
            raise

    tree.entities = slow
    page = EntitiesPage(tree)
    qtbot.addWidget(page)
    page.show()
    with qtbot.waitSignal(page.listed, timeout=10000):
        page.reload()
    page.search.setText("吉他")
    # Progress is sent at most every 50 ms: the first entity's at least, before the search is held.
    qtbot.waitUntil(lambda: page.status.text() in {"Searching… 1 of 9 entities read",
                                                   "Searching… 2 of 9 entities read"}, timeout=5000)
    first = page._runner
    with qtbot.waitSignal(page.listed, timeout=10000):
        page.search.setText("小红")  # a new search (after the typing pause): the first one is asked to stop
        qtbot.waitUntil(lambda: page._runner is not first, timeout=5000)
        release.set()
    qtbot.waitUntil(lambda: not first.is_running() and first not in TaskRunner._alive, timeout=5000)
    assert stopped == ["Cancelled"] and listed(page) == ["user:qq:10002"]


def test_a_memory_edited_by_hand_is_flagged_and_reindexed(qtbot, window, kira):
    detail = window.page.detail
    path = kira / "memory" / "entities" / "user_qq%3A10001" / "facts" / "learning_guitar.toml"
    assert not detail.stale_note.isHidden() and "2 memory files" in detail.stale_note.text()  # never indexed
    path.write_text(path.read_text(encoding="utf-8").replace("学吉他", "学尤克里里"), encoding="utf-8")
    detail.refresh()
    assert "3 memory files" in detail.stale_note.text()
    detail.reindex_button.click()
    qtbot.waitUntil(lambda: not not detail.stale_note.isHidden(), timeout=5000)
    assert "尤克里里" in open_tree(kira).injection(EntityRef("user", "qq:10001"), "尤克里里").text
    window.undo_action.trigger()
    qtbot.waitUntil(lambda: not detail.stale_note.isHidden(), timeout=5000)


def test_the_profile_form_edits_texts_numbers_lists_and_objects(qtbot):
    from kiraos_desktop.ui.entities.profile_dialog import ProfileFieldDialog

    profile = {"name": "小明", "traits": ["爱猫"], "preferences": {"饮料": "奶茶", "音量": 80}, "interaction_count": 12}
    dialog = ProfileFieldDialog(None, "t", profile, "traits")
    qtbot.addWidget(dialog)
    assert dialog.value() == ("traits", ["爱猫"])
    dialog._on_add_row_clicked()
    dialog.rows.item(1, 0).setText("耐心")
    dialog._on_add_row_clicked()  # left empty: left out
    assert dialog.value() == ("traits", ["爱猫", "耐心"])
    dialog.field.setCurrentIndex(dialog.field.findData("preferences"))
    assert dialog.value() == ("preferences", {"饮料": "奶茶", "音量": 80})
    dialog.rows.selectRow(0)
    dialog._on_remove_row_clicked()
    dialog.rows.item(0, 1).setText("[1, 2]")
    assert dialog.value() == ("preferences", {"音量": [1, 2]})
    dialog.field.setCurrentIndex(dialog.field.findData("interaction_count"))
    assert dialog.value() == ("interaction_count", 12)
    dialog.field.setCurrentIndex(dialog.field.findData("nickname"))
    dialog.text.setText("  明明 ")
    assert dialog.value() == ("nickname", "明明")


def test_a_profile_field_edited_in_the_window_is_written_and_undone(qtbot, window, kira):
    import json as json_module

    path = kira / "memory" / "entities" / "user_qq%3A10001" / "profile.json"
    original = path.read_bytes()
    window.edit_actions.ask_field = lambda parent, title, profile, field: ("traits", profile["traits"] + ["耐心"])
    window.page.detail.profile_button.click()
    qtbot.waitUntil(lambda: json_module.loads(path.read_text(encoding="utf-8"))["traits"] == ["爱猫", "耐心"],
                    timeout=5000)
    model = window.page.detail.profile_model
    qtbot.waitUntil(lambda: ("traits[1]", "耐心") in [model.row_at(n) for n in range(model.rowCount())], timeout=5000)
    window.undo_action.trigger()
    qtbot.waitUntil(lambda: path.read_bytes() == original, timeout=5000)


def test_the_edit_form_says_when_the_bot_may_replace_an_edit(qtbot):
    from kiraos_desktop.ui.entities.memory_dialog import MemoryDialog, MemoryValues

    new = MemoryDialog(None, "new")
    edited = MemoryDialog(None, "edit", MemoryValues("小明最近在学吉他", 7, ["hobby"], False))
    for dialog in (new, edited):
        qtbot.addWidget(dialog)
    assert new.note.isHidden() and not edited.note.isHidden() and "a few seconds" in edited.note.text()
    assert edited.values() == MemoryValues("小明最近在学吉他", 7, ["hobby"], False)


def test_the_tree_window_serves_the_tree_to_bot_hosts(qtbot, kira):
    import argparse

    import httpx

    from api_helpers import AUTH, TOKEN
    from kiraos_desktop.ui.entities.app import serve_tree

    from kiraos_desktop.core.engine import Engine

    engine = Engine.open(kira_data=kira)
    window = TreeWindow(engine.store.entity_tree, str(kira))
    qtbot.addWidget(window)
    server = serve_tree(window, engine, argparse.Namespace(port=0, token=TOKEN, host="127.0.0.1"))
    try:
        qtbot.waitUntil(lambda: server.url in window.api_state.text() and ":0" not in server.url, timeout=10000)
        assert not window.api_state.isHidden()
        reply = httpx.get(f"{server.url}/v1/context", params={"user_id": "qq:10001", "query": "吉他"}, headers=AUTH)
        assert reply.status_code == 200 and "小明最近在学吉他" in reply.json()["context"]
    finally:
        server.stop()
    no_server = serve_tree(window, engine, argparse.Namespace(port=70000, token=TOKEN, host="127.0.0.1"))
    assert no_server is None and "not serving" in window.api_state.text()  # bad options: said, no server
    engine.close()


def test_problems_are_said_in_the_windows_language(qtbot, page):
    from kiraos_desktop.ui.i18n import apply_language, language_manager

    choose(page, "user:qq:10002")
    english = {page.detail.problem_model.index(row, 1).data() for row in range(page.detail.problem_model.rowCount())}
    apply_language("zh_CN")
    try:
        choose(page, "user:qq:10001")
        choose(page, "user:qq:10002")
        model = page.detail.problem_model
        chinese = {model.index(row, 1).data() for row in range(model.rowCount())}
    finally:
        language_manager().clear()
    assert len(chinese) == len(english) == 3
    assert not chinese & english
    assert any(text.startswith("不是有效的 TOML：") for text in chinese)
    assert all(any("\u4e00" <= ch <= "\u9fff" for ch in text) for text in chinese)


def test_a_language_switch_with_a_tree_window_open_retranslates_it(qtbot, kira):
    """Settings > Language in the main window swaps the texts of every window, the tree's too (its
    edit actions shadowed QWidget.actions(), and the switch raised TypeError)."""
    from kiraos_desktop.ui.i18n import apply_language, language_manager

    window = TreeWindow(open_tree(kira), str(kira))
    qtbot.addWidget(window)
    window.show()
    try:
        apply_language("zh_CN")
        assert window.menuBar().actions()[0].text() != "&File"
    finally:
        language_manager().clear()


def test_every_refusal_of_the_tree_has_its_text_in_the_window():
    from kiraos_desktop.core.storage.tree.refusals import REFUSAL_TEXTS
    from kiraos_desktop.ui.entities import refusal_texts

    assert set(refusal_texts._texts()) == set(REFUSAL_TEXTS)


def test_a_refused_revert_and_a_broken_file_are_said_in_the_windows_language(qtbot, window, kira):
    """The editor's refusals were its English core texts in a Chinese window."""
    from kiraos_desktop.core.storage.tree.files import TreeMemory
    from kiraos_desktop.ui.entities.memory_dialog import MemoryValues
    from kiraos_desktop.ui.i18n import apply_language, language_manager

    detail, errors = window.page.detail, window.edit_actions.prompts.errors
    select(detail.memory_view, detail.memory_model, "小明最近在学吉他")
    detail.archive_button.click()
    archived = kira / "memory" / "archive" / "user__qq%3A10001__facts__learning_guitar.toml"
    qtbot.waitUntil(archived.exists, timeout=5000)
    archived.write_text(archived.read_text(encoding="utf-8") + "\n# the plugin wrote here\n", encoding="utf-8")
    path = kira / "memory" / "entities" / "user_qq%3A10001" / "facts" / "hates_css.toml"
    path.write_bytes(b"\xff broken")
    window.edit_actions.ask = lambda *args: MemoryValues("新的", 5, [], False)
    apply_language("zh_CN")
    try:
        window.undo_action.trigger()  # the archived file changed since: refused
        qtbot.waitUntil(lambda: len(errors) == 1, timeout=5000)
        assert window.edit_actions.edit(EntityRef("user", "qq:10001"), TreeMemory("hates_css", "facts", "fact", "x", 5, ())) is None
    finally:
        language_manager().clear()
    assert "在此之后已被插件或手动修改" in errors[0] and "归档" in errors[0] and "learning_guitar" in errors[0]
    assert errors[1].startswith("无法读取 entities/user_qq%3A10001/facts/hates_css.toml")
    assert archived.read_text(encoding="utf-8").endswith("# the plugin wrote here\n")  # nothing written


def test_what_the_bot_sees_stays_across_a_reload_of_the_list(qtbot, page, kira):
    """Issue 50: the preview was set, then the list reloaded (the preview's own read touched the
    folder), chose the entity again, and the text was cleared: the tab always stayed blank."""
    from PySide6.QtCore import Qt

    choose(page, "user:qq:10001")
    detail = page.detail
    detail.memory_view.setCurrentIndex(detail.memory_view.model().index(1, 0))
    chosen = detail.memory_view.currentIndex().data()
    detail.message.setText("吉他")
    qtbot.mouseClick(detail.show_button, Qt.MouseButton.LeftButton)
    shown = detail.injection.toPlainText()
    assert "小明最近在学吉他" in shown
    with qtbot.waitSignal(page.listed, timeout=10000):
        page.reload()
    assert detail.injection.toPlainText() == shown
    assert detail.message.text() == "吉他"
    assert detail.memory_view.currentIndex().data() == chosen  # the operator's selection too
    choose(page, "user:qq:10002")
    assert detail.injection.toPlainText() == ""  # another entity: its own preview, none yet


def test_the_preview_reads_a_wal_index_without_touching_the_tree(qtbot, page, kira):
    """Reading a WAL-mode memory_index.db whose writer is gone created -wal and -shm files in
    memory/ (a read-only connection cannot remove them): the folder's time changed and the window's
    watcher took our read for the plugin's write."""
    import os
    import sqlite3

    index = kira / "memory" / "memory_index.db"
    conn = sqlite3.connect(index)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.close()
    before = (sorted(os.listdir(kira / "memory")), os.stat(kira / "memory").st_mtime_ns)
    stamp = page._tree.change_stamp(EntityRef("user", "qq:10001"))
    choose(page, "user:qq:10001")
    page.detail.message.setText("吉他")
    page.detail.show_injection()
    assert "小明最近在学吉他" in page.detail.injection.toPlainText()
    assert (sorted(os.listdir(kira / "memory")), os.stat(kira / "memory").st_mtime_ns) == before
    assert page._tree.change_stamp(EntityRef("user", "qq:10001")) == stamp


def test_with_no_entity_chosen_the_tabs_say_to_choose_one(qtbot, page):
    page.view.clearSelection()
    page.view.setCurrentIndex(page.proxy.index(-1, -1))
    detail = page.detail
    detail.show_entity(None)
    assert detail._profile_empty.text() == "Choose an entity on the left"  # not "No profile yet"
    assert detail._memory_empty.text() == "Choose an entity on the left"


def test_profile_fields_are_named_for_operators_and_times_are_dates(qtbot):
    """Issue 50: `last_interaction 1796664315.91` and field names untranslated in zh_CN."""
    from datetime import datetime

    from kiraos_desktop.ui.entities.models import ProfileModel
    from kiraos_desktop.ui.i18n import apply_language, language_manager

    model = ProfileModel()
    model.set_profile({"entity_id": "qq:1", "name": "小明", "traits": ["爱猫"], "preferences": {"饮料": "奶茶"},
                       "interaction_count": 12, "last_interaction": 1796664315.91})
    shown = {model.index(n, 0).data(): model.index(n, 1).data() for n in range(model.rowCount())}
    when = datetime.fromtimestamp(1796664315.91).strftime("%Y-%m-%d %H:%M")
    assert shown == {"Name": "小明", "Traits 1": "爱猫", "Preferences: 饮料": "奶茶", "Conversations": "12",
                     "Last conversation": when}
    assert model.row_at(1)[0] == "traits[0]"  # the path stays what Edit field… works on
    try:
        apply_language("zh_CN")
        assert model.index(0, 0).data() == "名字" and model.index(4, 0).data() == "最近一次对话"
    finally:
        language_manager().clear()


def test_the_lists_counts_become_what_the_detail_shows(qtbot, kira):
    """Issue 50: the list said Facts 6 / Problems 0 while the detail showed 5 and Problems (1): a quick
    listing counts files. A reading pass then puts the detail's counts in the list, keeping the choice."""
    page = EntitiesPage(open_tree(kira))
    qtbot.addWidget(page)
    page.show()
    with qtbot.waitSignal(page.counted, timeout=10000):
        page.reload()
    choose(page, "user:qq:10002")
    row = next(page.model.row_at(n) for n in range(page.model.rowCount())
               if page.model.row_at(n).ref.label() == "user:qq:10002")
    detail = page.detail
    facts = sum(1 for n in range(detail.memory_model.rowCount()) if detail.memory_model.row_at(n).folder == "facts")
    assert (row.counts["facts"], row.problems) == (facts, detail.problem_model.rowCount()) == (1, 3)
    with qtbot.waitSignal(page.counted, timeout=10000):
        page.reload()
    assert page._current_ref().label() == "user:qq:10002"  # the counts came without losing the choice
