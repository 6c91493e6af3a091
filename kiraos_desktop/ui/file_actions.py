"""The File menu's work: choosing another data folder, backup, export, import and purging expired entries."""
from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QWidget

from kiraos_desktop.core.paths import DataPaths
from kiraos_desktop.ui import tasks
from kiraos_desktop.ui.prompts import Prompts
from kiraos_desktop.ui.undo import GUI_ACTOR, UndoableWriter


class FileActions(QObject):
    """Translation context of the File menu's questions: `FileActions.tr()` is what lupdate reads (plurals included)."""


def choose_data_dir(parent: QWidget, prompts: Prompts, paths: DataPaths) -> dict | None:
    """File > Open data folder: {"data_dir": folder} to reopen on, or None."""
    folder = prompts.folder(parent, FileActions.tr("Open a KiraOS Desktop data folder"), str(paths.data_dir))
    if not folder:
        return None
    return {"data_dir": folder}


def choose_kira_data(parent: QWidget, prompts: Prompts, paths: DataPaths) -> dict | None:
    """File > Open KiraOS data folder (companion mode): {"kira_data": folder}, checked first."""
    start = str(paths.db_path.parent.parent) if paths.companion else str(Path.home())
    title = FileActions.tr("Open the data folder of a KiraOS plugin install")
    folder = prompts.folder(parent, title, start)
    if not folder:
        return None
    database = Path(folder) / "memory" / "kiraos.db"
    if not database.is_file():
        question = FileActions.tr("{folder} has no memory/kiraos.db, so it does not look like the data "
                                  "folder of a KiraOS plugin install (the folder that holds memory/ and skills/).\n\n"
                                  "Open it anyway and start an empty database there?").format(folder=folder)
        if not prompts.confirm(parent, FileActions.tr("Open KiraOS data folder"), question,
                               FileActions.tr("Open anyway")):
            return None
    return {"kira_data": folder}


def backup(parent: QWidget, engine) -> None:
    tasks.backup_action(parent, engine)


def export_all(parent: QWidget, engine) -> None:
    tasks.export_action(parent, engine)


def import_file(parent: QWidget, engine) -> None:
    tasks.import_action(parent, engine)


def purge_all_expired(parent: QWidget, prompts: Prompts, writer: UndoableWriter) -> int | None:
    """Remove every expired entry off the GUI thread, as one undoable step."""
    title = FileActions.tr("Remove expired entries")
    question = FileActions.tr("Remove the expired profile entries of all users? The bot no longer sees "
                              "them. You can undo this with Ctrl+Z, or revert it per user in the History tab.")
    if not prompts.confirm(parent, title, question, FileActions.tr("Remove")):
        return None
    store = writer.store

    def work(_progress, _is_cancelled):
        with store.batch(GUI_ACTOR) as batch:
            removed = batch.purge_expired(None)
        return removed, list(batch.change_ids)

    outcome = tasks.run_task(parent, title, work, label=FileActions.tr("Removing expired entries…"),
                             cancellable=False)
    if not outcome.ok:
        prompts.error(parent, title,
                      FileActions.tr("Nothing was removed:\n{message}").format(message=outcome.message))
        return None
    removed, change_ids = outcome.result
    writer.record(FileActions.tr("Remove %n expired entries", "", removed), change_ids)
    prompts.info(parent, title, FileActions.tr("Removed %n expired entries.", "", removed) if removed
                 else FileActions.tr("There were no expired entries."))
    return removed
