"""The example skills shipped with the app and their installation into a data dir."""
from __future__ import annotations

import logging
import os
import shutil
import uuid
from pathlib import Path

from .remove_tree import remove_tree
from .problems import INSTRUCTION_FILE, MANIFEST_FILE

log = logging.getLogger(__name__)


def bundled_skills_dir() -> Path:
    """The folder holding the bundled example skills (checkout, wheel or frozen build)."""
    try:
        from kiraos_desktop.core import resources
    except ImportError:
        resources = None
    finder = getattr(resources, "bundled_skills_dir", None)
    if finder is not None:
        try:
            found = Path(finder())
        except (OSError, LookupError):
            found = None
        if found is not None and found.is_dir():
            return found
    return Path(__file__).resolve().parents[3] / "skills"


def install_bundled_skills(target_dir: Path, source_dir: Path | None = None) -> list[str]:
    """Copy each bundled skill folder into `target_dir` unless a folder of that name exists.

    Existing files are never overwritten (an existing folder is left exactly as it is).
    Each folder is copied under a hidden temporary name first and renamed into place, so a
    crash never leaves a half-copied skill. Returns the names of the folders copied."""
    source = Path(source_dir) if source_dir is not None else bundled_skills_dir()
    target = Path(target_dir)
    target.mkdir(parents=True, exist_ok=True)
    if not source.is_dir():
        log.warning("no bundled skills found at %s", source)
        return []
    copied: list[str] = []
    for folder in sorted(source.iterdir(), key=lambda p: p.name):
        if folder.name.startswith(("_", ".")) or not folder.is_dir():
            continue
        if not (folder / MANIFEST_FILE).is_file() or not (folder / INSTRUCTION_FILE).is_file():
            continue
        destination = target / folder.name
        if os.path.lexists(destination):
            continue
        staging = target / f".installing-{folder.name}-{uuid.uuid4().hex[:8]}"
        try:
            shutil.copytree(folder, staging, ignore=shutil.ignore_patterns("__pycache__", ".*"))
            if os.path.lexists(destination):  # created meanwhile by someone else: keep theirs
                remove_tree(staging)
                continue
            os.rename(staging, destination)
        except OSError as exc:
            remove_tree(staging)
            if os.path.lexists(destination):
                continue
            raise OSError(f"cannot install the example skill {folder.name!r} into {target}: {exc}") from exc
        copied.append(folder.name)
    return copied
