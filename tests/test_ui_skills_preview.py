"""Skills page preview: identical to the CLI and to a tool call; arguments, users, definitions."""
from __future__ import annotations

import json

import pytest
from PySide6.QtCore import Qt

from kiraos_desktop import cli
from kiraos_desktop.core.skills.manifest import manifest_parameters
from kiraos_desktop.core.skills.arguments import sample_arguments
from kiraos_desktop.core.skill_draft import render_preview
from kiraos_desktop.ui.skills.params_model import NAME
from ui_skills_helpers import page, remember  # noqa: F401 (fixtures)

SKILLS = ["daily_fortune", "emoji_interpret", "nickname_generator", "personality_test", "story_continue",
          "tarot_reading"]


def _preview(page, name, values, user):
    page.open_skill(name)
    page.workbench.args_form.set_values(values)
    assert page.workbench.user_picker.set_user(user)
    page.refresh_preview()
    return page.workbench.preview.text()


@pytest.mark.parametrize("name", SKILLS)
def test_preview_equals_cli_preview_and_tool_call(page, engine, data_dir, capsys, name):
    remember(engine, "u1")
    page.workbench.user_picker.model.refresh()
    values = sample_arguments(manifest_parameters(engine.skills.get(name).manifest))
    text = _preview(page, name, values, "u1")

    call = engine.tools.call(name, "u1", values)
    assert not call.is_error
    assert text == call.content
    assert "<context>\n[u1:basic]" in text
    assert "⚠️ 注意：以下情况不应执行此技能" in text  # every example has an exclude guard
    assert "<user_input>" in text

    argv = ["skills", "preview", name, "--user", "u1", "--data-dir", str(data_dir)]
    for key, value in values.items():
        argv += ["--arg", f"{key}={value}"]
    capsys.readouterr()
    assert cli.main(argv) == 0
    assert capsys.readouterr().out == text + "\n"


def test_escaping_and_values_that_look_like_placeholders(page, engine):
    value = "这次 <面试> 能 & 顺利吗 {question}"
    text = _preview(page, "tarot_reading", {"question": value}, "")
    assert text == engine.tools.call("tarot_reading", "nobody", {"question": value}).content
    assert "<user_input>这次 &lt;面试&gt; 能 &amp; 顺利吗 {question}</user_input>" in text
    assert "<context>" not in text  # no user chosen: no memory


def test_unsaved_text_preview_is_what_the_call_returns_after_saving(qtbot, page, engine):
    page.open_skill("tarot_reading")
    page.workbench.args_form.set_values({"question": "换工作"})
    page.editor.instruction_edit.setPlainText("新的指令：{question}\n第二行")
    qtbot.waitUntil(lambda: "新的指令：<user_input>换工作</user_input>" in page.workbench.preview.text())
    draft_text = page.workbench.preview.text()
    assert engine.tools.call("tarot_reading", "u9", {"question": "换工作"}).content != draft_text
    assert page.save()
    assert engine.tools.call("tarot_reading", "u9", {"question": "换工作"}).content == draft_text


def test_missing_required_argument_is_refused_like_a_call(page):
    text = _preview(page, "tarot_reading", {}, "")
    # The status says a call would be refused; the pane still shows the result, the argument marked.
    assert "question" in page.workbench.preview.status.text()
    assert "refused" in page.workbench.preview.status.text()
    assert "<user_input>⟨question: missing⟩</user_input>" in text and "塔罗" in text
    assert text.startswith("arguments.question: required field is missing\n\n")  # what the host is told
    # two sentences, not one run together ("...is missing Below, what it returns")
    assert "required field is missing. Below, what it returns" in page.workbench.preview.status.text()


def test_jinja_error_shows_the_error_result(qtbot, page):
    page.open_skill("daily_fortune")
    page.workbench.args_form.set_values({"sign": "双鱼座"})
    page.editor.instruction_edit.setPlainText("{{ sign | nosuchfilter }}")
    page.refresh_preview()
    text = page.workbench.preview.text()
    assert text.startswith("技能 daily_fortune 无法执行: ")
    assert text == render_preview("daily_fortune", "{{ sign | nosuchfilter }}",
                                  page.editor.manifest(), {"sign": "双鱼座"}).text


def test_added_parameter_appears_in_argument_form_and_preview(qtbot, page):
    page.open_skill("tarot_reading")
    model = page.editor.manifest_editor.form.params_model
    row = model.add_parameter()
    assert model.setData(model.index(row, NAME), "mood")
    assert "mood" in page.workbench.args_form.names()
    assert json.loads(page.editor.manifest_text())["parameters"]["properties"]["mood"] == {"type": "string"}
    page.editor.instruction_edit.appendPlainText("心情：{mood}")
    page.workbench.args_form.set_values({"question": "面试", "mood": "紧张"})
    qtbot.waitUntil(lambda: "心情：<user_input>紧张</user_input>" in page.workbench.preview.text())
    # removing it again takes the field away and the placeholder stays as written
    model.remove_parameter(model.row_of("mood"))
    assert "mood" not in page.workbench.args_form.names()
    page.refresh_preview()
    assert "心情：{mood}" in page.workbench.preview.text()


def test_typed_arguments_and_enums(qtbot, page):
    page.open_skill("nickname_generator")
    form = page.workbench.args_form
    form.set_values({"count": 3})
    assert form.arguments() == {"count": 3}
    model = page.editor.manifest_editor.form.params_model
    from kiraos_desktop.ui.skills.params_model import ENUM, TYPE

    row = model.add_parameter("loud")
    assert model.setData(model.index(row, TYPE), "boolean")
    style = model.row_of("style")
    assert model.setData(model.index(style, ENUM), "古风, 可爱")
    assert not model.setData(model.index(model.row_of("count"), ENUM), "one, two")  # not integers
    form.set_values({"style": "可爱", "loud": False, "count": 2})
    assert form.arguments() == {"style": "可爱", "loud": False, "count": 2}
    page.refresh_preview()
    assert "<user_input>可爱</user_input>" in page.workbench.preview.text()


@pytest.mark.parametrize("fmt", ["openai", "anthropic", "mcp"])
def test_tool_definition_toggle_matches_the_registry(page, engine, fmt):
    page.open_skill("tarot_reading")
    page.workbench.preview.set_mode(fmt)
    page.refresh_preview()
    listed = engine.tools.list_tools(fmt)
    entry = next(t for t in listed if json.dumps(t, ensure_ascii=False).find('"tarot_reading"') >= 0)
    assert json.loads(page.workbench.preview.text()) == entry


def test_user_picker_search_and_memory_changes(qtbot, page, engine):
    remember(engine, "alice")
    remember(engine, "bob")
    picker = page.workbench.user_picker
    qtbot.waitUntil(lambda: picker.model.rowCount() == 3)  # "no user" + two (store change event)
    picker.search_edit.setText("ali")
    qtbot.waitUntil(lambda: picker.model.rowCount() == 2)
    assert picker.set_user("alice")
    _preview(page, "tarot_reading", {"question": "q"}, "alice")
    assert "[alice:basic]" in page.workbench.preview.text()
    engine.store.set_profile("alice", "爱好", "猫", actor="gui", confidence=0.9, category="preference")
    qtbot.waitUntil(lambda: "爱好=猫" in page.workbench.preview.text())


def test_screenshot_method_fills_arguments_user_and_preview(qtbot, page, engine):
    remember(engine, "u7")
    page.workbench.user_picker.model.refresh()
    page.open_first_skill_with_sample_arguments()
    assert page.editor.folder.name == "daily_fortune"
    text = page.workbench.preview.text()
    assert text.startswith('<skill name="daily_fortune">') and "<user_input>" in text
    assert "<context>\n[u7:basic]" in text
    assert page.workbench.tester.result[0] == "daily_fortune"
    page.open_first_skill_with_sample_arguments("tarot_reading")
    assert page.workbench.preview.text() == engine.tools.call(
        "tarot_reading", "u7", page.workbench.args_form.arguments()).content


@pytest.fixture
def analyse_threads(monkeypatch):
    """The names of the threads the preview analysis ran on, in order."""
    import threading

    from kiraos_desktop.ui.skills import preview_runner

    threads = []
    real = preview_runner.analyse

    def spy(job, memory_block):
        threads.append(threading.current_thread().name)
        return real(job, memory_block)

    monkeypatch.setattr(preview_runner, "analyse", spy)
    return threads


def test_debounced_preview_runs_off_the_gui_thread_and_keeps_the_newest(qtbot, page, analyse_threads):
    threads = analyse_threads
    page.open_skill("tarot_reading")
    page.workbench.args_form.set_values({"question": "甲"})
    threads.clear()  # opening a skill computes inline, on the GUI thread
    for word in ("乙", "丙", "丁"):
        page.editor.instruction_edit.setPlainText(f"{word} {{question}}")
        page._preview_timer.timeout.emit()  # as if each debounce had expired
    qtbot.waitUntil(lambda: "丁 <user_input>甲</user_input>" in page.workbench.preview.text())
    assert threads and all(name.startswith("skill-preview") for name in threads)
    assert len(threads) <= 3  # a job superseded while waiting is never computed
    qtbot.wait(50)
    assert "丁 <user_input>甲</user_input>" in page.workbench.preview.text()


def test_a_handled_debounce_leaves_no_timer_pending(qtbot, page, analyse_threads):
    """Handling the timeout consumes the pending debounce: an edit's timer started before the
    preview was computed must not fire again later and compute the same text a second time."""
    from kiraos_desktop.ui.skills import page as page_module

    threads = analyse_threads
    page.open_skill("tarot_reading")
    page.workbench.args_form.set_values({"question": "甲"})
    threads.clear()
    page.editor.instruction_edit.setPlainText("乙 {question}")
    page._preview_timer.timeout.emit()
    assert not page._preview_timer.isActive()
    qtbot.waitUntil(lambda: "乙 <user_input>甲</user_input>" in page.workbench.preview.text())
    qtbot.wait(page_module.PREVIEW_DELAY_MS + 100)  # as on a loaded machine: past the debounce
    assert len(threads) == 1


def test_a_closed_page_reads_the_store_no_more(qtbot, engine, page, monkeypatch):
    """A change that arrives while or after the page closes must not reload the user list (the data
    folder may be gone by then: the self-test deletes its own)."""
    picker = page.workbench.user_picker
    reads = []
    monkeypatch.setattr(picker._worker, "submit", lambda work: reads.append(work))
    page.dispose()
    engine.store.add_event("late", "写入", actor="cli")  # the window's change signal fires after this
    picker._on_store_changed(frozenset({"late"}))  # one that was already queued when the page closed
    qtbot.wait(400)  # the coalescer's delay passes
    assert reads == []


def test_the_user_list_follows_writes_read_off_the_gui_thread(qtbot, monkeypatch, page, engine):
    """Listing users by activity sorts the whole summary table: after a write it is read on a worker
    thread, so a stream of API writes never holds the window."""
    import threading

    from kiraos_desktop.ui.skills.user_picker import UserListModel

    threads = []
    real = UserListModel.read_users

    def spy(store, search):
        threads.append(threading.current_thread().name)
        return real(store, search)

    monkeypatch.setattr(UserListModel, "read_users", staticmethod(spy))
    picker = page.workbench.user_picker
    remember(engine, "carol")
    qtbot.waitUntil(lambda: picker.model.row_of("carol") > 0)
    assert threads and all(name.startswith("kiraos-user-picker") for name in threads)
    picker.search_edit.setText("car")  # a typed search is answered at once, as before
    qtbot.waitUntil(lambda: picker.model.rowCount() == 2)


@pytest.mark.qt_log_ignore("This plugin does not support propagateSizeHints")
def test_tab_goes_from_the_user_through_the_arguments_to_the_preview_mode(qtbot, page):
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QApplication

    page.show()
    qtbot.waitExposed(page)
    page.open_skill("tarot_reading")
    page.open_skill("daily_fortune")  # fields made for a second skill too
    qtbot.wait(20)
    form, picker = page.workbench.args_form, page.workbench.user_picker
    expected = [form.editor(name) for name in form.names()] + [page.workbench.preview.mode_combo]
    assert len(expected) == 3
    picker.combo.setFocus()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is picker.combo)
    for widget in expected:
        qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Tab)
        assert QApplication.focusWidget() is widget



@pytest.mark.qt_log_ignore("This plugin does not support propagateSizeHints")
def test_a_language_switch_keeps_every_argument_field_in_view(qtbot, engine, tmp_path):
    # The fields are made anew in the new language; the box that holds them was fitted to them before
    # they were shown, and shrank to its 30-pixel minimum: one field, cut, and a scroll bar.
    from PySide6.QtCore import QPoint

    from kiraos_desktop.ui.i18n import apply_language, language_manager
    from kiraos_desktop.ui.main_window import PAGE_SKILLS
    from ui_helpers import shown_window

    with shown_window(qtbot, engine, tmp_path) as window:
        window.show_page(PAGE_SKILLS)
        page = window.skills_page
        page.open_skill("daily_fortune")
        form = page.workbench.args_form
        viewport = page.workbench._scroll.viewport()

        def all_in_view() -> bool:
            editors = [form.editor(name) for name in form.names()]
            return len(editors) == 2 and all(
                e.isVisible() and e.mapTo(viewport, QPoint(0, e.height())).y() <= viewport.height()
                for e in editors)

        qtbot.waitUntil(all_in_view)
        try:
            apply_language("zh_CN")
            qtbot.wait(200)
            assert all_in_view()
        finally:
            language_manager().clear()


def test_every_kind_of_bad_argument_shows_what_the_host_is_told(page, engine):
    """An out-of-range value left the pane empty; it shows the host's refusal, as a missing one does."""
    from kiraos_desktop.core.tool_registry import ToolArgumentError

    arguments = {"keyword": "小明", "count": 999999}
    text = _preview(page, "nickname_generator", arguments, "")
    try:
        engine.tools.call("nickname_generator", "u1", arguments)
        told = None
    except ToolArgumentError as exc:
        told = f"arguments.{exc.field}: {exc.message}"
    assert told is not None and text == told
    assert "refused" in page.workbench.preview.status.text()


def test_memory_of_filters_in_id_order_and_picks(qtbot, page, engine):
    """One field that filters and picks: typing chooses the user whose id it is (else the first
    match), Enter chooses the first match; a filtered list is in id order."""
    for user in ("u_b2", "u_a1", "u_b1", "x_other"):
        remember(engine, user)
    picker = page.workbench.user_picker
    qtbot.waitUntil(lambda: picker.model.rowCount() == 5)
    picker.search_edit.setFocus()
    qtbot.keyClicks(picker.search_edit, "u_b")
    qtbot.waitUntil(lambda: picker.model.search == "u_b", timeout=3000)
    assert [picker.model.user_id(row) for row in range(1, picker.model.rowCount())] == ["u_b1", "u_b2"]
    assert picker.current_user() == "u_b1"  # the first match, chosen by typing
    qtbot.keyClick(picker.search_edit, Qt.Key.Key_2)
    qtbot.waitUntil(lambda: picker.model.search == "u_b2", timeout=3000)
    assert picker.current_user() == "u_b2"  # the id typed in full
    picker.search_edit.clear()
    qtbot.keyClicks(picker.search_edit, "u_a")
    qtbot.keyClick(picker.search_edit, Qt.Key.Key_Return)
    assert picker.current_user() == "u_a1"  # Enter picks at once
