"""The Skills page: author skills (manifest + instruction, or SKILL.md) with a live preview of the tool result."""
from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QEvent, Qt, QTimer, Signal
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import QHBoxLayout, QSplitter, QWidget

from kiraos_desktop.core.settings import SettingsError
from kiraos_desktop.core.skills import Problem
from kiraos_desktop.core import skill_draft as drafts
from kiraos_desktop.core.skills.arguments import sample_arguments
from kiraos_desktop.core.skills.discovery import is_agent_folder, read_text_file
from kiraos_desktop.core.skills import file_ops
from kiraos_desktop.core.skills.file_ops import SkillFileError, save_skill_files, save_skill_md
from kiraos_desktop.core.skills.manifest import manifest_parameters
from kiraos_desktop.core.skills.problems import AGENT_SKILL_FILE, INSTRUCTION_FILE, MANIFEST_FILE
from kiraos_desktop.core.tool_registry import SKILL_CONTEXT_EVENTS

from .editor import SkillEditor
from .list_panel import MIN_LIST_WIDTH, SkillListPanel
from .page_actions import SkillFiles
from .preview_runner import PreviewJob, PreviewOutcome, PreviewRunner
from .prompts import DISCARD, SAVE, Prompter
from .theme import colors_for
from .transfer_actions import SkillTransfer
from .watcher import SkillFilesWatcher
from .workbench import Workbench

#: Debounce of the live preview after an edit.
PREVIEW_DELAY_MS = 150


class SkillsPage(QWidget):
    """Skill workbench page.

    SkillsPage(router, store, store_changed, context, settings_access, parent=None, *, backups_dir=None)

    - router: the SkillRouter (engine.skills): lists skills, reloads after a save, matches commands.
    - store: the MemoryReader (engine.store): the user picker lists its users.
    - store_changed: the window's coalesced change signal (ChangeCoalescer.triggered): the picker and
      the preview follow writes through it.
    - context: the ContextBuilder (engine.context): the memory block of the preview's `<context>`.
    - settings_access: anything with `settings` and `edit_settings(edit)` (the Engine will do):
      enable/disable writes `disabled_skills`; `enable_slash_commands` is shown by the tester.
      When it also has `on_settings_changed(cb) -> unsubscribe`, changes made elsewhere show.
    - backups_dir: where deleted skills go (`<backups_dir>/deleted-skills/`); defaults to
      `settings_access.paths.backups_dir` when that exists, else `<skills_dir>/../backups`.
    """

    _settingsChanged = Signal()  # from settings listeners on any thread; queued to the GUI thread
    _skillsChanged = Signal()  # the router reloaded (the engine follows the folder on disk); queued

    def __init__(self, router, store, store_changed, context, settings_access, parent: QWidget | None = None,
                 *, backups_dir: Path | None = None, force_polling: bool = False):
        super().__init__(parent)
        self._router = router
        self._context = context
        self._settings_access = settings_access
        if backups_dir is None:
            paths = getattr(settings_access, "paths", None)
            backups_dir = getattr(paths, "backups_dir", None) or Path(router.skills_dir).parent / "backups"
        self.backups_dir = Path(backups_dir)
        self.prompter = Prompter(self)

        self.list_panel = SkillListPanel(self)
        self.editor = SkillEditor(self)
        self.workbench = Workbench(store, store_changed, self._match_command, self._slash_enabled, self)
        self.splitter = QSplitter(Qt.Orientation.Horizontal, self)
        self.splitter.setChildrenCollapsible(False)
        for widget in (self.list_panel, self.editor, self.workbench):
            self.splitter.addWidget(widget)
        self.splitter.setStretchFactor(0, 0)
        self.splitter.setStretchFactor(1, 3)
        self.splitter.setStretchFactor(2, 3)
        self.splitter.setSizes([MIN_LIST_WIDTH, 460, 460])
        self.splitter.setObjectName("skillsPageSplitter")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addWidget(self.splitter)

        self.watcher = SkillFilesWatcher(router.skills_dir, self, force_polling=force_polling)
        # The page composes its controllers and hands each what it works on (it is their SkillPageHost).
        self.files = SkillFiles(self, router=router, settings_access=settings_access, backups_dir=self.backups_dir,
                                prompter=self.prompter, editor=self.editor, list_panel=self.list_panel,
                                watcher=self.watcher, parent=self)
        self.transfer = SkillTransfer(self, files=self.files, router=router, backups_dir=self.backups_dir,
                                      prompter=self.prompter, editor=self.editor, parent=self)
        self._preview_timer = QTimer(self)
        self._preview_timer.setSingleShot(True)
        self._preview_timer.setInterval(PREVIEW_DELAY_MS)
        self._preview_timer.timeout.connect(self._on_preview_timer_timeout)
        self._switching = False
        self._generation = 0
        self._runner = PreviewRunner(self._memory_block, self)
        self._runner.finished.connect(self._on_runner_finished)

        for keys, slot in ((QKeySequence.StandardKey.Save, self._on_save_shortcut_activated),
                           (QKeySequence.StandardKey.Find, self._on_find_shortcut_activated),
                           (QKeySequence.StandardKey.New, self._on_new_shortcut_activated)):
            shortcut = QShortcut(QKeySequence(keys), self)
            shortcut.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            shortcut.activated.connect(slot)

        # Queued: opening a skill may reload the list, which must not happen inside the
        # selection model's own signal.
        self.list_panel.currentFolderChanged.connect(self._on_list_current_folder_changed,
                                                     Qt.ConnectionType.QueuedConnection)
        self.list_panel.model.enabledToggled.connect(self._on_list_enabled_toggled)
        self.list_panel.newRequested.connect(self.new_skill)
        self.list_panel.duplicateRequested.connect(self.duplicate_skill)
        self.list_panel.renameRequested.connect(self.rename_skill)
        self.list_panel.deleteRequested.connect(self.delete_skill)
        # Queued: a drop must finish before the import (with its progress dialog) runs.
        self.list_panel.importRequested.connect(self.import_skill, Qt.ConnectionType.QueuedConnection)
        self.list_panel.exportRequested.connect(self.export_skill)
        self.editor.edited.connect(self._on_editor_edited)
        self.editor.manifestChanged.connect(self._on_editor_manifest_changed)
        self.editor.saveRequested.connect(self.save)
        self.editor.revertRequested.connect(self.revert)
        self.workbench.args_form.argumentsChanged.connect(self._on_inputs_changed)
        self.workbench.user_picker.userChanged.connect(self._on_inputs_changed)
        self.workbench.user_picker.memoryChanged.connect(self._on_inputs_changed)
        self.workbench.preview.modeChanged.connect(self._on_inputs_changed)
        self.workbench.problems.problemActivated.connect(self._on_problems_problem_activated)
        self.watcher.skillsDirChanged.connect(self.files.on_skills_dir_changed)
        self.watcher.skillFilesChanged.connect(self.files.on_skill_files_changed)

        self._settingsChanged.connect(self._on_settings_changed, Qt.ConnectionType.QueuedConnection)
        listen = getattr(settings_access, "on_settings_changed", None)
        self._unlisten = listen(self._on_settings_event) if callable(listen) else None
        self._skillsChanged.connect(self._on_router_changed, Qt.ConnectionType.QueuedConnection)
        follow = getattr(router, "on_changed", None)
        self._unfollow = follow(self._on_router_event) if callable(follow) else None

        self.reload_skills()
        self.open_first()
        self._ready = True

    # ------------------------------------------------------------------ public API

    @property
    def prompter(self) -> Prompter:
        """Asks the user (a test puts a scripted one in its place: the controllers use it too)."""
        return self._prompter

    @prompter.setter
    def prompter(self, prompter: Prompter) -> None:
        self._prompter = prompter
        for controller in (getattr(self, "files", None), getattr(self, "transfer", None)):
            if controller is not None:
                controller.prompter = prompter

    def new_skill(self) -> str | None:
        """Ctrl+N: create a skill from the template (disabled); its folder name."""
        return self.files.new_skill()

    def duplicate_skill(self) -> str | None:
        return self.files.duplicate_skill()

    def rename_skill(self) -> str | None:
        return self.files.rename_skill()

    def delete_skill(self) -> Path | None:
        return self.files.delete_skill()

    def import_skill(self, source: str = "") -> str | None:
        return self.transfer.import_skill(source)

    def export_skill(self, destination: str = "") -> Path | None:
        return self.transfer.export_skill(destination)

    def reload_skills(self) -> None:
        """Rescan the skills folder (the API serves what the router holds) and refresh the list."""
        self._router.reload()
        self.refresh_list()

    def refresh_list(self) -> None:
        folder = self.editor.folder
        self.list_panel.set_skills(self._router.skills(), folder.name if folder is not None else "")
        self.watcher.accept()

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt override)
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange and getattr(self, "_ready", False):
            self.apply_palette()
        elif event.type() == QEvent.Type.LanguageChange and getattr(self, "_ready", False):
            self.apply_palette()  # the preview's legend is made of translated words
            self.refresh_preview()  # notes and validation messages

    def apply_palette(self) -> None:
        """Recolour highlighting, gutters and badges for the current palette (light/dark switch)."""
        colors = colors_for(self.palette())
        self.list_panel.set_colors(colors)
        self.editor.manifest_editor.set_colors(colors)
        self.editor.instruction_edit.set_colors(colors)
        self.editor.highlighter.set_colors(colors)
        self.workbench.preview.set_colors(colors)
        self.workbench.problems.set_colors(colors)
        self.workbench.tester.set_colors(colors)

    def dispose(self) -> None:
        """Stop timers, file watching and store notifications (the window is closing)."""
        self._preview_timer.stop()
        self._generation += 1  # whatever the worker still finishes is dropped
        self._runner.shutdown()
        self.watcher.stop()
        self.workbench.user_picker.detach()
        if self._unlisten is not None:
            self._unlisten()
            self._unlisten = None
        if self._unfollow is not None:
            self._unfollow()
            self._unfollow = None

    def has_unsaved_changes(self) -> bool:
        return self.editor.is_dirty()

    def confirm_leave(self) -> bool:
        """Before switching skills or closing: True when it is fine to leave the open skill
        (nothing unsaved, saved now, or discarded); False when the user cancels."""
        if not self.editor.is_dirty():
            return True
        answer = self.prompter.unsaved_changes(self.files.router_name(self.editor.folder))
        if answer == SAVE:
            return self.save()
        return answer == DISCARD

    def open_skill(self, folder_name: str, ask: bool = True) -> bool:
        """Open the skill in `skills_dir/folder_name` (asking about unsaved changes when `ask`)."""
        current = self.editor.folder
        if ask and current is not None and current.name != folder_name and not self.confirm_leave():
            self.list_panel.select_folder(current.name, silent=True)
            return False
        folder = Path(self._router.skills_dir) / folder_name
        if is_agent_folder(folder):
            self.editor.load(folder, "", read_text_file(folder / AGENT_SKILL_FILE, "manifest").text or "", agent=True)
        else:
            manifest = read_text_file(folder / MANIFEST_FILE, "manifest").text or ""
            instruction = read_text_file(folder / INSTRUCTION_FILE, "instruction").text or ""
            self.editor.load(folder, manifest, instruction)
        self.watcher.watch_skill(folder)
        self.list_panel.select_folder(folder_name, silent=True)
        self.refresh_preview()
        return True

    def open_first_skill_with_sample_arguments(self, name: str | None = None) -> None:
        """For screenshots: open the first skill (or the one called `name`), fill every argument
        with a sample value, choose a user who has memory, and render the preview at once."""
        folder = self.list_panel.first_folder()
        if name is not None:
            folder = next((s.folder.name for s in self._router.skills() if s.name == name), folder)
        if not folder:
            return
        self.open_skill(folder, ask=False)
        schema = manifest_parameters(self.editor.manifest())
        self.workbench.args_form.set_values(sample_arguments(schema))
        user = self.workbench.user_picker.first_user_with_memory()
        if user:
            self.workbench.user_picker.set_user(user)
        command = self.editor.manifest().get("command")
        if isinstance(command, str) and command:
            values = sample_arguments(schema, only_required=True) or sample_arguments(schema)
            sample = next((v for v in values.values() if isinstance(v, str)), "")
            self.workbench.tester.set_text(f"{command} {sample}".strip())
        self.refresh_preview()

    def save(self) -> bool:
        """Write both files atomically, reload the router (the API serves the new version at
        once) and mark the editor clean. False (after telling the user) when writing fails."""
        folder = self.editor.folder
        if folder is None:
            return False
        self.refresh_preview()  # the problems of exactly the text about to be written
        errors = [problem for problem in self.workbench.problems.model.problems() if problem.is_error]
        if errors and not self.prompter.save_invalid(
                folder.name, [f"{p.field}: {p.message}" if p.field else p.message for p in errors]):
            return False
        try:
            folder.mkdir(parents=True, exist_ok=True)  # removed behind our back: the edits still go somewhere
            if self.editor.is_agent:
                save_skill_md(folder, self.editor.instruction_text())
            else:
                save_skill_files(folder, self.editor.manifest_text(), self.editor.instruction_text())
        except (SkillFileError, OSError) as exc:
            self.prompter.error(self.tr("Save skill"), self.tr("The skill could not be saved: {0}").format(exc))
            return False
        self.editor.mark_saved()
        self.watcher.accept()
        self.reload_skills()
        self.refresh_preview()
        return True

    def revert(self) -> None:
        """Drop the unsaved changes: reload both files from disk."""
        folder = self.editor.folder
        if folder is not None:
            self.open_skill(folder.name, ask=False)

    # ------------------------------------------------------------------ preview

    def schedule_preview(self) -> None:
        self._preview_timer.start()

    def refresh_preview(self) -> None:
        """Recompute problems, preview (or tool definition) and the command tester now, inline."""
        self._preview_timer.stop()
        job = self._job()
        if job is None:
            self._show_nothing()
            return
        self._apply(self._runner.compute(job))

    def _on_preview_timer_timeout(self) -> None:
        self._preview_timer.stop()  # the debounce is consumed, whoever reported it expired
        job = self._job()
        if job is None:
            self._show_nothing()
        else:
            self._runner.submit(job)  # on the worker thread; _on_runner_finished applies it

    def _job(self) -> PreviewJob | None:
        folder = self.editor.folder
        if folder is None:
            return None
        self._generation += 1
        bench = self.workbench
        return PreviewJob(self._generation, folder, self.editor.manifest_text(), self.editor.instruction_text(),
                          dict(self.editor.manifest()), tuple(self._router.skills()), bench.preview.mode(),
                          bench.args_form.arguments(), bench.user_picker.current_user(), self.editor.is_agent,
                          self.tr("⟨{name}: missing⟩"))

    def _show_nothing(self) -> None:
        bench = self.workbench
        bench.problems.set_problems([])
        bench.set_problem_counts(0, 0)
        bench.preview.show_definition("", self.tr("No skill is open."))
        bench.tester.refresh()

    def _on_runner_finished(self, outcome: PreviewOutcome) -> None:
        if outcome.generation == self._generation:  # else a newer edit is already on its way
            self._apply(outcome)

    def _apply(self, outcome: PreviewOutcome) -> None:
        bench = self.workbench
        bench.problems.set_problems(outcome.problems)
        errors, warnings = bench.problems.counts()
        bench.set_problem_counts(errors, warnings)
        note = self._availability_note(outcome.skill_name, errors)
        if outcome.failure:
            bench.preview.show_failure(outcome.failure)
        elif outcome.result is not None:
            bench.preview.show_result(outcome.result, outcome.spans, note)
        else:
            bench.preview.show_definition(outcome.definition, note)
        bench.tester.refresh()

    def _availability_note(self, name: str, errors: int) -> str:
        if errors:
            return self.tr("{0} error(s): hosts cannot call this skill until they are fixed (see Problems). "
                           "This is what it would return.").format(errors)
        if name in self._settings_access.settings.disabled_skills:
            return self.tr("This skill is disabled: hosts do not see it. This is what it would return.")
        if self.editor.is_dirty():
            return self.tr("Unsaved: hosts still get the saved version until you save (Ctrl+S).")
        return ""

    def _memory_block(self, user_id: str) -> str:
        """The `<context>` memory a tool call gives a skill (thread-safe: runs on the worker)."""
        return self._context.block_text(user_id, SKILL_CONTEXT_EVENTS)

    def _match_command(self, text: str):
        folder = self.editor.folder
        if folder is None:
            return self._router.match_command(text)
        skill = drafts.draft_skill(self.editor.manifest(), folder)
        return drafts.match_command(text, skill, self.files.router_name(folder), self._router)

    def _slash_enabled(self) -> bool:
        return bool(self._settings_access.settings.enable_slash_commands)

    # ------------------------------------------------------------------ slots

    def _on_list_current_folder_changed(self, folder_name: str) -> None:
        if self._switching or not folder_name:
            return
        current = self.editor.folder
        if current is not None and current.name == folder_name:
            return
        self._switching = True
        try:
            self.open_skill(folder_name)
        finally:
            self._switching = False

    def _on_list_enabled_toggled(self, name: str, enabled: bool) -> None:
        skill = self._router.get(name)
        errors = [p for p in skill.problems if p.is_error] if skill is not None else []
        if enabled and errors:  # the template's texts, say: a host would be offered a broken tool
            self.prompter.error(self.tr("Enable skill"), self.tr(
                "{0} has %n problem(s) to fix before hosts can call it (see Problems), such as: {1}",
                "", len(errors)).format(name, errors[0].message))
            self.refresh_list()
            return
        try:  # this one skill, in the settings as they are on disk now
            self._settings_access.edit_settings(
                lambda s: s.replace(disabled_skills=file_ops.enabled_in(s.disabled_skills, name, enabled)))
        except (SettingsError, OSError) as exc:
            self.prompter.error(self.tr("Enable skill"), self.tr("The setting could not be saved: {0}").format(exc))
        self.refresh_list()
        self.schedule_preview()

    def _on_settings_event(self, _old, _new) -> None:
        try:
            self._settingsChanged.emit()  # disabled skills or slash commands changed elsewhere
        except RuntimeError:
            pass  # the page is gone

    def _on_router_event(self) -> None:
        try:
            self._skillsChanged.emit()  # a skill added, changed, renamed or removed on disk
        except RuntimeError:
            pass  # the page is gone

    def _on_router_changed(self) -> None:
        """The list, its On boxes and the problems shown are what the router (and so the API) holds.
        The open skill's own files are looked at first, so that its editor follows them (or asks,
        with unsaved edits) rather than the change being taken as seen."""
        self.watcher.check()
        folder = self.editor.folder
        self.list_panel.set_skills(self._router.skills(), folder.name if folder is not None else "")
        self.schedule_preview()

    def _on_settings_changed(self) -> None:
        self.refresh_list()
        self.workbench.tester.refresh()
        self.schedule_preview()

    def _on_editor_edited(self) -> None:
        self.schedule_preview()

    def _on_editor_manifest_changed(self) -> None:
        self.workbench.args_form.set_schema(manifest_parameters(self.editor.manifest()))
        self.schedule_preview()

    def _on_inputs_changed(self, *_args) -> None:
        self.schedule_preview()

    def _on_problems_problem_activated(self, problem: Problem) -> None:
        self.editor.goto_problem(problem)

    def open_first(self) -> None:
        first = self.list_panel.first_folder()
        if first:
            self.open_skill(first, ask=False)
        else:
            self.editor.load(None, "", "")
            self.watcher.watch_skill(None)
            self.refresh_preview()

    def _on_save_shortcut_activated(self) -> None:
        self.save()

    def _on_find_shortcut_activated(self) -> None:
        self.editor.open_find()

    def _on_new_shortcut_activated(self) -> None:
        self.new_skill()
