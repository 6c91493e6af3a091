"""Import and Export of Agent Skills (SKILL.md) on the Skills page (a mixin of SkillsPage)."""
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
    """Translation context of the texts below (a mixin's self.tr() would use the page's context)."""


class SkillTransferActions:
    """Needs from the page: `_router`, `backups_dir`, `prompter`, `editor`, `confirm_leave()`, `reload_skills()`,
    `open_skill()`, `_ask_free_name()` and `_free_suggestion()`."""

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
        if not self.confirm_leave():
            return None
        name: str | None = None
        replace = False
        while True:
            outcome = run_task(self, title, self._import_work(Path(source), name, replace),
                               label=SkillTransfer.tr("Importing {0}…").format(Path(source).name), cancellable=False)
            if not outcome.ok:
                failed = SkillTransfer.tr("The skill could not be imported:\n{0}")
                self.prompter.error(title, failed.format(outcome.message))
                return None
            result = outcome.result
            if isinstance(result, UnusableNameError):
                name = self._ask_free_name(title, SkillTransfer.tr("{0} cannot be a tool name here. Import the skill "
                                                                   "under this name (letters, digits, _ or -):")
                                           .format(result.name or "?"), self._free_suggestion("imported_skill"))
                if name is None:
                    return None
                continue
            if not isinstance(result, NameClashError):
                break
            answer = self.prompter.name_clash(result.name)
            if answer == REPLACE:
                replace = True
            elif answer == RENAME:
                name = self._ask_free_name(title, SkillTransfer.tr("Import the skill under another name:"),
                                           self._free_suggestion(f"{result.name}_2"))
                if name is None:
                    return None
            else:
                return None
        self.reload_skills()
        self.open_skill(result.folder.name, ask=False)
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
        if folder is None or not self.confirm_leave():
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
        outcome = run_task(self, title, lambda _p, _c: export_skill(folder, Path(destination), overwrite),
                           label=SkillTransfer.tr("Exporting {0}…").format(folder.name), cancellable=False)
        if not outcome.ok:
            failed = SkillTransfer.tr("The skill could not be exported:\n{0}")
            self.prompter.error(title, failed.format(outcome.message))
            return None
        self.prompter.info(title, SkillTransfer.tr("Exported to {0}. Agent Skills hosts can load this folder as it is.")
                           .format(outcome.result))
        return outcome.result
