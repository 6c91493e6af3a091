"""Translation catalogues of the window: their names and places, and compiling a .ts into a .qm with lrelease.

Qt-free on purpose: the wheel build (setup.py), the PyInstaller spec and tools/i18n.py load this file
on its own (it imports nothing from the package) to compile the catalogues before Qt ever runs.
"""
from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

#: Languages of the UI. English is the source language; its catalogue holds only the plural forms
#: (`%n entries` -> `1 entry`), the Chinese one holds every message.
LANGUAGES = ("en", "zh_CN")
SOURCE_LANGUAGE = "en"
#: The folder under resources/ that holds the catalogues (.ts committed, .qm built).
FOLDER = "i18n"


def catalogue_stem(language: str) -> str:
    return f"kiraos_desktop_{language}"


def qt_tool(name: str) -> Path | None:
    """Path of a Qt Linguist tool (`lrelease`, `lupdate`) shipped inside PySide6, or the pyside6-<name> wrapper."""
    spec = importlib.util.find_spec("PySide6")
    if spec is not None and spec.origin:
        suffix = ".exe" if sys.platform == "win32" else ""
        for candidate in (Path(spec.origin).parent / f"{name}{suffix}",
                          Path(spec.origin).parent / "Qt" / "bin" / f"{name}{suffix}"):
            if candidate.is_file() and os.access(candidate, os.X_OK):
                return candidate
    found = shutil.which(f"pyside6-{name}")
    return Path(found) if found else None


class CatalogueError(RuntimeError):
    """lrelease is missing or refused a catalogue; the message says which and why."""


def compile_catalogue(ts_file: Path, qm_file: Path) -> Path:
    """Compile one Qt Linguist catalogue into the binary form QTranslator loads; returns qm_file."""
    tool = qt_tool("lrelease")
    if tool is None:
        raise CatalogueError("lrelease not found: install PySide6-Essentials (it ships pyside6-lrelease)")
    qm_file.parent.mkdir(parents=True, exist_ok=True)
    # Written beside the target and renamed: another process never loads half a file.
    partial = qm_file.with_name(f".{qm_file.name}.{os.getpid()}.partial")
    try:
        result = subprocess.run([str(tool), "-silent", str(ts_file), "-qm", str(partial)],
                                capture_output=True, text=True, timeout=120)
        if result.returncode != 0 or not partial.is_file():
            raise CatalogueError(f"lrelease failed on {ts_file.name}: {(result.stderr or result.stdout).strip()}")
        os.replace(partial, qm_file)
    finally:
        if partial.exists():
            partial.unlink()
    return qm_file


def compile_folder(source_dir: Path, target_dir: Path) -> list[Path]:
    """Compile every catalogue of source_dir (resources/i18n) into target_dir; returns the .qm files."""
    return [compile_catalogue(ts, target_dir / (ts.stem + ".qm")) for ts in sorted(source_dir.glob("*.ts"))]
