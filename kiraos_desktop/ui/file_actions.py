"""The File menu's work: choosing another data folder, backup, export, import, purging expired entries and
copying the memory to PostgreSQL."""
from __future__ import annotations

import os
from datetime import datetime
from pathlib import Path

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QWidget

from kiraos_desktop.core.paths import DataPaths
from kiraos_desktop.core.storage.plugin_layout import LOOKED_FOR, NotPluginData, folder_layout
from kiraos_desktop.core.memory.records import StoreError
from kiraos_desktop.core.transfer.export_import import Cancelled, NotAnExport, TransferError, apply_import, export_file, read_import_file
from kiraos_desktop.core.transfer.export_import import backup as backup_database
from kiraos_desktop.ui.prompts import Prompts
from kiraos_desktop.ui.tasks import run_task
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
    title = FileActions.tr("Open KiraOS data folder")
    try:
        folder_layout(folder)  # named here only to ask about a folder that is no plugin's
    except NotPluginData:
        question = FileActions.tr("{folder} does not look like the data folder of a KiraOS plugin install (the "
                                  "folder that holds memory/ and skills/): it has no {looked_for}.\n\n"
                                  "Open it anyway and start an empty database there?").format(
            folder=folder, looked_for=LOOKED_FOR)
        if not prompts.confirm(parent, title, question, FileActions.tr("Open anyway")):
            return None
        return {"kira_data": folder}
    except StoreError as exc:  # a database that cannot be read
        prompts.error(parent, title, FileActions.tr("{folder} cannot be opened: {reason}").format(
            folder=folder, reason=str(exc)))
        return None
    return {"kira_data": folder}


def purge_all_expired(parent: QWidget, prompts: Prompts, writer: UndoableWriter) -> int | None:
    """Remove every expired entry off the GUI thread, as one undoable step."""
    title = FileActions.tr("Remove expired entries")
    question = FileActions.tr("Remove the expired profile entries of all users? The bot no longer sees "
                              "them. You can undo this with Ctrl+Z, or revert it per user in the History tab.")
    if not prompts.confirm(parent, title, question, FileActions.tr("Remove")):
        return None
    store = writer.store

    def work(_progress, _is_cancelled):
        return store.run_batch(GUI_ACTOR, lambda batch: batch.purge_expired(None))

    outcome = run_task(parent, title, work, label=FileActions.tr("Removing expired entries…"),
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


# ---- backup, export and import ------------------------------------------------------------

class FileTasks(QObject):
    """Translation context of the File menu's tasks: `FileTasks.tr()` is what lupdate reads (plurals included)."""


def _stamp() -> str:
    return datetime.now().strftime("%Y%m%d-%H%M%S")


def _safe(text: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in text)[:40] or "user"


def _size(path: Path) -> str:
    size = float(path.stat().st_size)
    for unit in ("B", "KB", "MB", "GB"):
        if size < 1024 or unit == "GB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return ""


def backup(parent: QWidget | None, prompts: Prompts, engine) -> Path | None:
    """File > Back up: ask for a file, copy the live database into it. Returns the path or None."""
    title = FileTasks.tr("Back up the database")
    default = engine.paths.backups_dir / f"kiraos-backup-{_stamp()}.db"
    chosen = prompts.save_file(parent, title, str(default), FileTasks.tr("SQLite database (*.db);;All files (*)"))
    if not chosen:
        return None
    target = Path(chosen)
    # The file dialog already asked before overwriting: back up beside it, then replace it.
    temp = target.with_name(f".{target.name}.{os.getpid()}.partial") if target.exists() else target

    def work(progress, is_cancelled):
        done = backup_database(engine.store, temp, progress, is_cancelled)
        if done != target:
            os.replace(done, target)
        return target

    outcome = run_task(parent, title, work, label=FileTasks.tr("Copying the database…"))
    if outcome.status == "failed":
        prompts.error(parent, title, FileTasks.tr("The backup failed:\n{0}").format(outcome.message))
        return None
    if outcome.status == "cancelled":
        prompts.info(parent, title, FileTasks.tr("Backup cancelled; no file was written."))
        return None
    prompts.info(parent, title, FileTasks.tr("Backup written to {0} ({1}).").format(target, _size(target)))
    return target


def export_all(parent: QWidget | None, prompts: Prompts, engine, user_ids: list[str] | None = None) -> int | None:
    """File > Export (all users, or `user_ids`) to a JSON file; returns the number of users or None."""
    title = FileTasks.tr("Export memory")
    if user_ids and len(user_ids) == 1:
        name = f"kiraos-export-{_safe(user_ids[0])}-{_stamp()}.json"
    else:
        name = f"kiraos-export-{_stamp()}.json"
    chosen = prompts.save_file(parent, title, str(engine.paths.backups_dir / name),
                               FileTasks.tr("KiraOS export (*.json);;All files (*)"))
    if not chosen:
        return None
    target = Path(chosen)
    outcome = run_task(parent, title, lambda progress, _c: export_file(engine.store, target, user_ids, progress),
                       label=FileTasks.tr("Writing {0}…").format(target.name))
    if outcome.status == "failed":
        prompts.error(parent, title, FileTasks.tr("The export failed:\n{0}").format(outcome.message))
        return None
    if outcome.status == "cancelled":
        prompts.info(parent, title, FileTasks.tr("Export cancelled; no file was written."))
        return None
    done = FileTasks.tr("Exported %n users to {path}.", "", outcome.result)
    prompts.info(parent, title, done.format(path=target))
    return outcome.result


def import_file(parent: QWidget | None, prompts: Prompts, engine) -> tuple[int, int] | None:
    """File > Import: validate the whole file, confirm with its counts, import in one transaction.

    Returns (profile entries written, events added) or None when nothing was imported.
    """
    title = FileTasks.tr("Import memory")
    chosen = prompts.open_file(parent, title, str(engine.paths.backups_dir),
                               FileTasks.tr("KiraOS export (*.json);;All files (*)"))
    if not chosen:
        return None
    path = Path(chosen)
    store = engine.store

    def read(_progress, is_cancelled):
        try:
            plan = read_import_file(path)
        except NotAnExport as exc:  # another kind of file: say what an export is; the detail after
            raise TransferError(FileTasks.tr("{file} is not a KiraOS Desktop export (those are written by "
                                             "File > Export… and by Export this user…).").format(file=path.name)
                                + "\n" + str(exc)) from None
        if is_cancelled():
            raise Cancelled(FileTasks.tr("Import cancelled; nothing was changed."))
        existing = sum(1 for uid in plan.user_ids if store.user_summary(uid) is not None)
        return plan, existing

    outcome = run_task(parent, title, read, label=FileTasks.tr("Checking {0}…").format(path.name))
    if outcome.status == "cancelled":
        return None
    if not outcome.ok:
        prompts.error(parent, title, FileTasks.tr("This file cannot be imported:\n{0}\n\nNothing was changed.")
                      .format(outcome.message))
        return None
    plan, existing = outcome.result
    question = FileTasks.tr("Import {users} with {entries} and {events} from {file}?").format(
        users=FileTasks.tr("%n users", "", len(plan.user_ids)),
        entries=FileTasks.tr("%n profile entries", "", len(plan.profiles)),
        events=FileTasks.tr("%n events", "", len(plan.events)), file=path.name)
    if existing:
        question += "\n\n" + FileTasks.tr("%n of these users already have memory: entries with the same key "
                                          "are replaced, identical events are skipped.", "", existing)
    if plan.tagged_events and not store.event_tags:
        question += "\n\n" + FileTasks.tr("%n event tags are not kept: this memory has no event tags (the data "
                                          "of the KiraOS plugin 2.x has them).", "", plan.tagged_events)
    if not prompts.confirm(parent, title, question, FileTasks.tr("Import")):
        return None
    outcome = run_task(parent, title, lambda progress, cancelled: apply_import(
        store, plan, "import", progress, cancelled), label=FileTasks.tr("Importing…"))
    if outcome.status == "cancelled":
        prompts.info(parent, title, FileTasks.tr("Import cancelled; nothing was changed."))
        return None
    if outcome.status == "failed":
        prompts.error(parent, title,
                      FileTasks.tr("The import failed and nothing was changed:\n{0}").format(outcome.message))
        return None
    profiles, events = outcome.result
    prompts.info(parent, title, FileTasks.tr("Imported {entries} and {events} for {users}.").format(
        entries=FileTasks.tr("%n profile entries", "", profiles),
        events=FileTasks.tr("%n new events", "", events),
        users=FileTasks.tr("%n users", "", len(plan.user_ids))))
    return outcome.result


def copy_to_postgres(parent: QWidget | None, prompts: Prompts, engine) -> bool:
    """File > Copy memory to PostgreSQL. True when the copy is now the memory in use: the setting
    database_url names it, and the window's settings listener reopens the window on it."""
    from kiraos_desktop.ui.migrate_dialog import MigrateDialog

    dialog = MigrateDialog(engine, prompts, parent)
    try:
        dialog.exec()
        return dialog.switched
    finally:
        dialog.deleteLater()
