"""Follows the skills folder and settings.json on disk: what the command line, another process or an
editor writes there is what this process serves and shows, within a watcher tick.

Every process on a data dir (the window, `serve`, `mcp`) changes these files, and each keeps them
loaded: without this, a skill edited by hand was served as it was, and a skill that `skills new`
left disabled was offered to bots by a window whose settings were older than the file.
"""
from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Callable

from kiraos_desktop.core.settings import SettingsError
from kiraos_desktop.core.skills.discovery import file_signature

log = logging.getLogger(__name__)


def skills_fingerprint(skills_dir: Path) -> tuple:
    """Names and file signatures of the skills folder's entries and of their direct children (the
    manifest, the instruction, SKILL.md, the folders beside them)."""
    found: list[tuple] = []
    try:
        entries = sorted(os.scandir(skills_dir), key=lambda e: e.name)
    except OSError:
        return ()
    for entry in entries:
        found.append((entry.name, file_signature(Path(entry.path))))
        try:
            if entry.is_dir():
                for child in sorted(os.scandir(entry.path), key=lambda e: e.name):
                    found.append((entry.name, child.name, file_signature(Path(child.path))))
        except OSError:  # vanished or unreadable right now: the next look sees the new state
            found.append((entry.name, None))
    return tuple(found)


class DataFolderFollower:
    """Compares the skills folder and settings.json with what was last seen; `check()` reloads what
    changed (`reload_skills()`, `reload_settings()`). Called from one thread (the engine's watcher)."""

    def __init__(self, skills_dir: Callable[[], Path], settings_file: Path,
                 reload_skills: Callable[[], None], reload_settings: Callable[[], object]):
        self._skills_dir = skills_dir
        self._settings_file = settings_file
        self._reload_skills = reload_skills
        self._reload_settings = reload_settings
        self._skills_seen = skills_fingerprint(skills_dir())
        self._settings_seen = file_signature(settings_file)

    def check(self) -> None:
        settings = file_signature(self._settings_file)
        if settings != self._settings_seen:
            self._settings_seen = settings
            try:
                self._reload_settings()  # may point at another skills folder: before the skills
            except (OSError, SettingsError) as exc:  # being written by hand, say: the settings in use stay
                log.warning("settings.json changed on disk but was not adopted: %s", exc)
        skills = skills_fingerprint(self._skills_dir())
        if skills != self._skills_seen:
            self._skills_seen = skills
            self._reload_skills()
