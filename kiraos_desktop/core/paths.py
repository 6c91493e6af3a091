"""Resolves the data dir layout: settings, token, database, skills, backups and logs."""
from __future__ import annotations

import logging
import os
import stat
from dataclasses import dataclass
from pathlib import Path

import platformdirs

log = logging.getLogger(__name__)

APP_NAME = "kiraos-desktop"
ENV_DATA_DIR = "KIRAOS_DATA_DIR"
PRIVATE_DIR_MODE = 0o700
PRIVATE_FILE_MODE = 0o600
SQLITE_SIDE_FILES = ("-wal", "-shm")


def readable_by_others(mode: int) -> bool:
    """True when the group or other users may read (or list) it."""
    return bool(mode & 0o044)


def _restrict(path: Path, mode: int) -> None:
    """Take group and other permissions away (never add any); a file we cannot change is left as it is."""
    try:
        current = stat.S_IMODE(path.stat().st_mode)
        if current & 0o077:
            os.chmod(path, current & mode)
    except FileNotFoundError:
        pass
    except PermissionError as exc:
        log.warning("cannot make %s private: %s", path, exc)


@dataclass(frozen=True)
class DataPaths:
    data_dir: Path
    db_path: Path
    skills_dir: Path
    companion: bool = False  # True when the data belongs to a KiraOS plugin install

    @property
    def settings_file(self) -> Path:
        return self.data_dir / "settings.json"

    @property
    def token_file(self) -> Path:
        return self.data_dir / "api-token"

    @property
    def backups_dir(self) -> Path:
        return self.data_dir / "backups"

    @property
    def logs_dir(self) -> Path:
        return self.data_dir / "logs"

    @property
    def database_files(self) -> tuple[Path, ...]:
        """The database and the files SQLite keeps next to it (they take the database's mode when created)."""
        return (self.db_path,) + tuple(self.db_path.with_name(self.db_path.name + s) for s in SQLITE_SIDE_FILES)

    def ensure(self, sqlite: bool = True) -> None:
        """Create the folders. On POSIX our own folders become 0700 (data dir, backups, logs, and in
        standalone mode the database's memory/ folder) and, in standalone mode, the database and its
        -wal/-shm 0600: memories are private. A companion install's database keeps its modes.
        `sqlite` False (the memory is in PostgreSQL): neither the database file nor its folder is created."""
        folders = [self.data_dir, self.backups_dir, self.logs_dir]
        if not self.companion:  # a plugin's folder gets no skills/ it did not have: made by the first skill
            folders.insert(1, self.skills_dir)
        if sqlite:
            folders.insert(1, self.db_path.parent)
        for folder in folders:
            folder.mkdir(parents=True, exist_ok=True)
        if os.name != "posix":
            return
        private = [self.data_dir, self.backups_dir, self.logs_dir]
        if sqlite and not self.companion and self.db_path.parent == self.data_dir / "memory":
            private.append(self.db_path.parent)
        for folder in private:
            _restrict(folder, PRIVATE_DIR_MODE)
        if sqlite and not self.companion:
            try:  # created 0600 before SQLite opens it; SQLite gives -wal and -shm the same mode
                os.close(os.open(self.db_path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, PRIVATE_FILE_MODE))
            except FileExistsError:
                pass
            for path in self.database_files:
                _restrict(path, PRIVATE_FILE_MODE)

    def database_modes(self) -> list[tuple[Path, int]]:
        """(path, permission bits) of the database's folder, the database and its -wal/-shm, those that
        exist; [] where modes mean nothing (Windows)."""
        if os.name != "posix":
            return []
        modes = []
        for path in (self.db_path.parent,) + self.database_files:
            try:
                modes.append((path, stat.S_IMODE(path.stat().st_mode)))
            except OSError:
                continue
        return modes


def default_data_dir() -> Path:
    env = os.environ.get(ENV_DATA_DIR)
    if env:
        return Path(env).expanduser()
    return Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))


def resolve_paths(
    data_dir: str | os.PathLike | None = None,
    kira_data: str | os.PathLike | None = None,
    db: str | os.PathLike | None = None,
    skills_dir: str | os.PathLike | None = None,
    configured_skills_dir: str | None = None,
) -> DataPaths:
    """Apply the precedence: explicit --db/--skills-dir > companion layout > data dir layout."""
    if data_dir and kira_data:
        raise ValueError("use either --data-dir or --kira-data, not both")
    if kira_data:
        # Companion mode keeps our settings/token apart from the plugin's folder.
        root = Path(kira_data).expanduser().resolve()
        base = default_data_dir() if data_dir is None else Path(data_dir)
        db_path = root / "memory" / "kiraos.db"
        skills = root / "skills"
        paths_root = base
        companion = True
    else:
        paths_root = Path(data_dir).expanduser() if data_dir else default_data_dir()
        db_path = paths_root / "memory" / "kiraos.db"
        # A relative setting is inside the data dir: the same folder wherever the program is started.
        skills = paths_root / Path(configured_skills_dir or "skills").expanduser()
        companion = False
    if db:
        db_path = Path(db).expanduser()
    if skills_dir:
        skills = Path(skills_dir).expanduser()
    return DataPaths(paths_root.resolve(), db_path.resolve(), skills.resolve(), companion)
