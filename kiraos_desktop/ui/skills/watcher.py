"""Notices skill files changed on disk by another program (QFileSystemWatcher, polling fallback)."""
from __future__ import annotations

import os
from pathlib import Path

from PySide6.QtCore import QFileSystemWatcher, QObject, QTimer, Signal

from kiraos_desktop.core.skills.discovery import file_signature
from kiraos_desktop.core.skills.problems import AGENT_SKILL_FILE, INSTRUCTION_FILE, MANIFEST_FILE

_SKILL_FILES = (MANIFEST_FILE, INSTRUCTION_FILE, AGENT_SKILL_FILE)

#: Polling period when the platform cannot watch a path (and as a safety net).
POLL_MS = 1000
#: Events arrive in bursts (temp file, rename, ...): look once things settle.
SETTLE_MS = 120


class SkillFilesWatcher(QObject):
    """Compares what is on disk with what the page last accepted (loaded or saved).

    `skillFilesChanged()` — manifest.json or instruction.md of the open skill differ (or vanished);
    `skillsDirChanged()` — skill folders appeared, vanished or were renamed.
    Call `accept()` after loading or saving so the page's own writes are not reported."""

    skillFilesChanged = Signal()
    skillsDirChanged = Signal()

    def __init__(self, skills_dir: Path, parent: QObject | None = None, force_polling: bool = False):
        super().__init__(parent)
        self._skills_dir = Path(skills_dir)
        self._folder: Path | None = None
        self._files_seen: tuple = ()
        self._listing_seen: tuple = ()
        self._watcher = QFileSystemWatcher(self)
        self._watcher.fileChanged.connect(self._on_watcher_path_changed)
        self._watcher.directoryChanged.connect(self._on_watcher_path_changed)
        self._settle = QTimer(self)
        self._settle.setSingleShot(True)
        self._settle.setInterval(SETTLE_MS)
        self._settle.timeout.connect(self.check)
        self._poll = QTimer(self)
        self._poll.setInterval(POLL_MS)
        self._poll.timeout.connect(self.check)
        self._force_polling = force_polling
        self._stopped = False
        self._listing_seen = self._listing()
        self._rearm()

    @property
    def polling(self) -> bool:
        return self._poll.isActive()

    def watch_skill(self, folder: Path | None) -> None:
        """Watch this skill folder's two files (None: no skill open) and accept their current state."""
        self._folder = Path(folder) if folder is not None else None
        self.accept()

    def accept(self) -> None:
        """What is on disk now is known (the page loaded or wrote it)."""
        self._files_seen = self._files()
        self._listing_seen = self._listing()
        self._rearm()

    def check(self) -> None:
        """Compare with the accepted state and report differences (also called by the timers)."""
        self._settle.stop()
        if self._stopped:
            return
        listing = self._listing()
        files = self._files()
        self._rearm()
        if listing != self._listing_seen:
            self._listing_seen = listing
            self.skillsDirChanged.emit()
        if files != self._files_seen:
            self._files_seen = files
            self.skillFilesChanged.emit()

    def stop(self) -> None:
        """Stop watching and polling for good."""
        self._stopped = True
        self._settle.stop()
        self._poll.stop()
        watched = self._watcher.files() + self._watcher.directories()
        if watched:
            self._watcher.removePaths(watched)

    # ------------------------------------------------------------------ internals

    def _files(self) -> tuple:
        if self._folder is None:
            return ()
        return tuple(file_signature(self._folder / name) for name in _SKILL_FILES)

    def _listing(self) -> tuple:
        try:
            return tuple(sorted(entry.name for entry in os.scandir(self._skills_dir)
                                if not entry.name.startswith(".")))
        except OSError:
            return ()

    def _wanted(self) -> list[str]:
        paths = [self._skills_dir]
        if self._folder is not None:
            paths += [self._folder] + [self._folder / name for name in _SKILL_FILES]
        return [str(p) for p in paths if p.exists()]

    def _rearm(self) -> None:
        """(Re)add watched paths: an editor's save-by-rename replaces the file the watcher had."""
        if self._stopped:
            return
        wanted = set(self._wanted())
        watched = set(self._watcher.files()) | set(self._watcher.directories())
        stale = sorted(watched - wanted)
        if stale:
            self._watcher.removePaths(stale)
        missing = sorted(wanted - watched)
        failed = self._watcher.addPaths(missing) if missing else []
        needs_polling = self._force_polling or bool(failed) or not wanted
        if needs_polling and not self._poll.isActive():
            self._poll.start()
        elif not needs_polling and self._poll.isActive():
            self._poll.stop()

    def _on_watcher_path_changed(self, _path: str) -> None:
        self._settle.start()
