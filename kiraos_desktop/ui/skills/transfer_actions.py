"""Import and Export of Agent Skills (SKILL.md): the Skills page's transfer controller."""
from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject

from kiraos_desktop.core.skills.agent_format import SKILL_FILE_NAMES
from kiraos_desktop.core.skills.agent_io import (
    NameClashError,
    SkillTransferError,
    UnusableNameError,
    export_name,
    export_skill,
    import_skill,
)
from kiraos_desktop.ui.tasks import run_task

from .prompts import RENAME, REPLACE


class SkillTransfer(QObject):
    """The page's Import and Export of Agent Skills. Given the router, the backups folder, the page's
    prompter and editor, its file controller (names: ask_free_name, free_suggestion) and the page as
    `host` (SkillPageHost; also the parent of the progress box). Its QObject name is the translation
    context of its texts."""

    def __init__(self, host, *, files, router, backups_dir: Path, prompter, editor, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._host = host
        self._files = files
        self._router = router
        self.backups_dir = backups_dir
        self.prompter = prompter
        self.editor = editor

    def import_skill(self, source: str = "") -> str | None:
        """Import an Agent Skills folder or archive (asked for when `source` is ""); a name clash
        asks replace / rename / cancel. Returns the new skill's folder name, or None."""
        title = SkillTransfer.tr("Import skill")
        if not source:
            filters = SkillTransfer.tr("Agent Skills (SKILL.md skill.md *.zip *.skill);;All files (*)")
            chosen = self.prompter.open_file(title, str(Path.home()), filters)
            if not chosen:
                return None
            source = str(Path(chosen).parent) if Path(chosen).name in SKILL_FILE_NAMES else chosen
        if not self._host.confirm_leave():
            return None
        name: str | None = None
        replace = False
        while True:
            outcome = run_task(self._host, title, self._import_work(Path(source), name, replace),
                               label=SkillTransfer.tr("Importing {0}…").format(Path(source).name), cancellable=False)
            if not outcome.ok:
                failed = SkillTransfer.tr("The skill could not be imported:\n{0}")
                self.prompter.error(title, failed.format(outcome.message))
                return None
            result = outcome.result
            if isinstance(result, UnusableNameError):
                name = self._files.ask_free_name(title, SkillTransfer.tr("{0} cannot be a tool name here. Import the skill "
                                                                   "under this name (letters, digits, _ or -):")
                                           .format(result.name or "?"), self._files.free_suggestion("imported_skill"))
                if name is None:
                    return None
                continue
            if not isinstance(result, NameClashError):
                break
            answer = self.prompter.name_clash(result.name)
            if answer == REPLACE:
                replace = True
            elif answer == RENAME:
                name = self._files.ask_free_name(title, SkillTransfer.tr("Import the skill under another name:"),
                                           self._files.free_suggestion(f"{result.name}_2"))
                if name is None:
                    return None
            else:
                return None
        self._host.reload_skills()
        self._host.open_skill(result.folder.name, ask=False)
        if result.command_changed is not None:
            before, after = result.command_changed
            if after:
                note = SkillTransfer.tr("{0} is another skill's command, so the imported skill uses {1}.")
            else:
                note = SkillTransfer.tr("{0} is another skill's command, so the imported skill has no command.")
            self.prompter.info(title, note.format(before, after))
        return result.folder.name

    def _import_work(self, source: Path, name: str | None, replace: bool):
        skills_dir, backups_dir = Path(self._router.skills_dir), Path(self.backups_dir)

        def work(_progress, _cancelled):
            try:
                return import_skill(source, skills_dir, name=name, replace=replace, backups_dir=backups_dir)
            except (NameClashError, UnusableNameError) as exc:  # a question for the user, not a failure
                return exc
        return work

    def export_skill(self, destination: str = "") -> Path | None:
        """Write the open skill as `<destination>/<agent-name>/SKILL.md` (the folder is asked for
        when `destination` is ""); an existing folder is replaced only after asking."""
        folder = self.editor.folder
        title = SkillTransfer.tr("Export skill")
        if folder is None or not self._host.confirm_leave():
            return None
        if not destination:
            destination = self.prompter.choose_folder(title, str(Path.home()))
            if not destination:
                return None
        try:
            target = Path(destination) / export_name(folder)
        except SkillTransferError as exc:
            self.prompter.error(title, SkillTransfer.tr("The skill could not be exported:\n{0}").format(exc))
            return None
        overwrite = target.exists()
        if overwrite and not self.prompter.confirm_overwrite(title, str(target)):
            return None
        outcome = run_task(self._host, title, lambda _p, _c: export_skill(folder, Path(destination), overwrite),
                           label=SkillTransfer.tr("Exporting {0}…").format(folder.name), cancellable=False)
        if not outcome.ok:
            failed = SkillTransfer.tr("The skill could not be exported:\n{0}")
            self.prompter.error(title, failed.format(outcome.message))
            return None
        self.prompter.info(title, SkillTransfer.tr("Exported to {0}. Agent Skills hosts can load this folder as it is.")
                           .format(outcome.result))
        return outcome.result
