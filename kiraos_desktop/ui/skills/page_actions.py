"""New, Duplicate, Rename, Delete and reactions to files changed on disk: the Skills page's file controller."""
from __future__ import annotations

from pathlib import Path
from typing import Any, Protocol

from PySide6.QtCore import QObject

from kiraos_desktop.core.settings import SettingsError
from kiraos_desktop.core.skills import file_ops
from kiraos_desktop.core.skills.file_ops import SkillFileError


class SkillPageHost(Protocol):
    """What the controllers of the Skills page ask of the page that composes them."""

    def confirm_leave(self) -> bool: ...

    def open_skill(self, folder_name: str, ask: bool = True) -> bool: ...

    def open_first(self) -> None: ...

    def reload_skills(self) -> None: ...

    def schedule_preview(self) -> None: ...


class SkillFiles(QObject):
    """The page's New, Duplicate, Rename and Delete, and its reactions to skill files changed on disk.

    Given what it works on: the router (engine.skills), the settings access (disabled_skills), the
    backups folder, the page's prompter, editor, list panel and files watcher, and the page itself as
    `host` (SkillPageHost). Its QObject name is the translation context of its texts."""

    def __init__(self, host: SkillPageHost, *, router: Any, settings_access: Any, backups_dir: Path, prompter: Any,
                 editor: Any, list_panel: Any, watcher: Any, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._host = host
        self._router = router
        self._settings_access = settings_access
        self.backups_dir = backups_dir
        self.prompter = prompter
        self.editor = editor
        self.list_panel = list_panel
        self.watcher = watcher

    # ------------------------------------------------------------------ names

    def _name_message(self, code: str, name: str) -> str:
        messages = {
            file_ops.NAME_EMPTY: SkillFiles.tr("Give the skill a name."),
            file_ops.NAME_INVALID: SkillFiles.tr("{0!r} is not a valid skill name: use 1 to 64 ASCII letters, "
                                                 "digits, _ or - (not starting with _).").format(name),
            file_ops.NAME_RESERVED: SkillFiles.tr("{0!r} is reserved for the memory tools.").format(name),
            file_ops.NAME_TAKEN: SkillFiles.tr("Another skill is already named {0!r}.").format(name),
            file_ops.FOLDER_TAKEN: SkillFiles.tr("The skills folder already has an entry named {0!r}.").format(name),
        }
        return messages.get(code, "")

    def ask_free_name(self, title: str, label: str, suggestion: str, own_name: str = "") -> str | None:
        """Ask until the name is usable (or the user cancels). `own_name` may be kept (rename)."""
        name = suggestion
        while True:
            name = self.prompter.ask_name(title, label, name)
            if name is None:
                return None
            code = file_ops.check_name_in(self._router, name, own_name)
            if code == file_ops.NAME_OK:
                return name
            self.prompter.error(title, self._name_message(code, name))

    def free_suggestion(self, base: str) -> str:
        taken = {s.name for s in self._router.skills()}
        candidate, number = base, 2
        while candidate in taken or (self._router.skills_dir / candidate).exists():
            candidate = f"{base}{number}"
            number += 1
        return candidate

    # ------------------------------------------------------------------ actions

    def new_skill(self) -> str | None:
        """Ctrl+N: create a skill from the template; returns its folder name."""
        if not self._host.confirm_leave():
            return None
        name = self.ask_free_name(SkillFiles.tr("New skill"),
                                   SkillFiles.tr("Name of the new skill (letters, digits, _ or -):"),
                                   self.free_suggestion("my_skill"))
        if name is None:
            return None
        listed = name in self._settings_access.settings.disabled_skills
        try:  # disabled first: it is never served with the template's texts, even for a moment
            self._settings_access.edit_settings(
                lambda s: s.replace(disabled_skills=file_ops.disabled_with(s.disabled_skills, name)))
        except (SettingsError, OSError) as exc:
            self.prompter.error(SkillFiles.tr("New skill"),
                                SkillFiles.tr("The skill was not created: the setting that keeps it disabled "
                                              "could not be saved: {0}").format(exc))
            return None
        try:
            folder = file_ops.create_skill(self._router.skills_dir, name, *file_ops.template_files(name))
        except SkillFileError as exc:
            try:  # no skill: nothing of it left in the settings
                if not listed:
                    self._settings_access.edit_settings(
                        lambda s: s.replace(disabled_skills=file_ops.enabled_in(s.disabled_skills, name, True)))
            except (SettingsError, OSError):
                pass  # the name stays listed as disabled: harmless, and the error below is the one to tell
            self.prompter.error(SkillFiles.tr("New skill"),
                                SkillFiles.tr("The skill could not be created: {0}").format(exc))
            return None
        self._after_change(folder.name)
        return folder.name

    def duplicate_skill(self) -> str | None:
        folder = self.editor.folder
        if folder is None or not self._host.confirm_leave():
            return None
        source = self.router_name(folder)
        name = self.ask_free_name(SkillFiles.tr("Duplicate skill"),
                                   SkillFiles.tr("Name of the copy of {0}:").format(source),
                                   self.free_suggestion(f"{source}_copy"))
        if name is None:
            return None
        try:
            target = file_ops.duplicate_skill(folder, name)
        except (SkillFileError, OSError, ValueError) as exc:
            self.prompter.error(SkillFiles.tr("Duplicate skill"),
                                SkillFiles.tr("The skill could not be duplicated: {0}").format(exc))
            return None
        self._after_change(target.name)
        return target.name

    def rename_skill(self) -> str | None:
        """Rename the skill and its folder; a name or folder clash is refused."""
        folder = self.editor.folder
        if folder is None or not self._host.confirm_leave():
            return None
        old = self.router_name(folder)
        name = self.ask_free_name(SkillFiles.tr("Rename skill"),
                                   SkillFiles.tr("New name of {0} (its folder is renamed too):").format(old),
                                   old, own_name=old)
        if name is None or (name == old and folder.name == name):
            return None
        try:
            target = file_ops.rename_skill(folder, name)
        except (SkillFileError, OSError, ValueError) as exc:
            self.prompter.error(SkillFiles.tr("Rename skill"),
                                SkillFiles.tr("The skill could not be renamed: {0}").format(exc))
            return None
        self._rename_disabled(old, name)
        self._after_change(target.name)
        return target.name

    def delete_skill(self) -> Path | None:
        """Ask, then move the folder to `<backups>/deleted-skills/`; returns where it went."""
        folder = self.editor.folder
        if folder is None:
            return None
        area = Path(self.backups_dir) / file_ops.DELETED_SKILLS
        if not self.prompter.confirm_delete(self.router_name(folder), str(area)):
            return None
        try:
            target = file_ops.delete_skill(folder, self.backups_dir)
        except SkillFileError as exc:
            self.prompter.error(SkillFiles.tr("Delete skill"),
                                SkillFiles.tr("The skill could not be deleted: {0}").format(exc))
            return None
        self.editor.load(None, "", "")  # its edits go with it (the saved files are in the backups)
        self.watcher.watch_skill(None)
        self._host.reload_skills()
        self._host.open_first()
        return target

    # ------------------------------------------------------------------ changes on disk

    def on_skills_dir_changed(self) -> None:
        self._router.reload()
        folder = self.editor.folder
        self.list_panel.set_skills(self._router.skills(), folder.name if folder is not None else "")
        if folder is not None and not folder.exists() and not self.editor.is_dirty():
            self._host.open_first()
        self._host.schedule_preview()

    def on_skill_files_changed(self) -> None:
        folder = self.editor.folder
        if folder is None:
            return
        self._router.reload()
        self.list_panel.set_skills(self._router.skills(), folder.name)
        if not folder.exists():
            return  # the folder went away: handled by the listing change
        if not self.editor.is_dirty() or self.prompter.reload_changed_files(self.router_name(folder)):
            self._host.open_skill(folder.name, ask=False)
        else:
            self._host.schedule_preview()

    # ------------------------------------------------------------------ helpers

    def router_name(self, folder: Path) -> str:
        for skill in self._router.skills():
            if Path(skill.folder) == Path(folder):
                return skill.name
        return Path(folder).name

    def _rename_disabled(self, old: str, new: str) -> None:
        if old not in self._settings_access.settings.disabled_skills:
            return
        try:
            self._settings_access.edit_settings(lambda s: s.replace(
                disabled_skills=file_ops.renamed_in(s.disabled_skills, old, new) or s.disabled_skills))
        except (SettingsError, OSError) as exc:
            self.prompter.error(SkillFiles.tr("Rename skill"),
                                SkillFiles.tr("The skill was renamed but stays enabled: {0}").format(exc))

    def _after_change(self, folder_name: str) -> None:
        self._host.reload_skills()
        self._host.open_skill(folder_name, ask=False)
