"""Resolves the data dir layout: settings, token, database, skills, backups and logs."""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import platformdirs

APP_NAME = "kiraos-desktop"
ENV_DATA_DIR = "KIRAOS_DATA_DIR"


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

    def ensure(self) -> None:
        for folder in (self.data_dir, self.db_path.parent, self.skills_dir, self.backups_dir, self.logs_dir):
            folder.mkdir(parents=True, exist_ok=True)


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
        skills = Path(configured_skills_dir).expanduser() if configured_skills_dir else paths_root / "skills"
        companion = False
    if db:
        db_path = Path(db).expanduser()
    if skills_dir:
        skills = Path(skills_dir).expanduser()
    return DataPaths(paths_root.resolve(), db_path.resolve(), skills.resolve(), companion)
