"""Wheel build hook: copies the repo-root resources/ and skills/ into kiraos_desktop/_data/, compiling translations."""
from __future__ import annotations

import importlib.util
import os
import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
#: Repo-root folders that a wheel carries under kiraos_desktop/_data/ (core/resources.py looks there).
DATA_FOLDERS = ("resources", "skills")
DATA_PACKAGE_DIR = Path("kiraos_desktop", "_data")
#: Qt Linguist catalogues (.ts, committed) compiled into .qm files beside them in the wheel.
I18N_DIR = Path("resources", "i18n")


def _catalogues():
    """kiraos_desktop/catalogues.py loaded on its own: the package's imports are not installed at build time."""
    spec = importlib.util.spec_from_file_location("_kiraos_catalogues", ROOT / "kiraos_desktop" / "catalogues.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _compiled_catalogues() -> list[Path]:
    """Paths (relative to the data package dir) of the .qm files the wheel carries."""
    return [I18N_DIR / (ts.stem + ".qm") for ts in sorted((ROOT / I18N_DIR).glob("*.ts"))]


def _data_files() -> list[tuple[Path, Path]]:
    """(source, path relative to the data package dir) for every file to ship, caches and dotfiles skipped."""
    files = []
    for folder in DATA_FOLDERS:
        base = ROOT / folder
        for dirpath, dirnames, filenames in os.walk(base):
            dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d != "__pycache__")
            for name in sorted(filenames):
                if name.startswith(".") or name.endswith((".pyc", ".pyo", ".qm")):  # .qm: built below
                    continue
                source = Path(dirpath, name)
                files.append((source, source.relative_to(ROOT)))
    return files


class BuildPyWithData(build_py):
    """build_py that also copies the data folders; editable installs read them from the checkout."""

    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return
        target = Path(self.build_lib, DATA_PACKAGE_DIR)
        if target.exists() and not self.dry_run:
            shutil.rmtree(target)  # an earlier in-tree build may hold files removed since
        for source, relative in _data_files():
            destination = target / relative
            self.mkpath(str(destination.parent))
            self.copy_file(str(source), str(destination))
        if not self.dry_run:
            # PySide6-Essentials is a build requirement (pyproject.toml) for its lrelease.
            _catalogues().compile_folder(ROOT / I18N_DIR, target / I18N_DIR)

    def get_outputs(self, include_bytecode: bool = True) -> list[str]:
        outputs = super().get_outputs(include_bytecode)
        if not getattr(self, "editable_mode", False):
            target = Path(self.build_lib, DATA_PACKAGE_DIR)
            outputs += [str(target / relative) for _, relative in _data_files()]
            outputs += [str(target / relative) for relative in _compiled_catalogues()]
        return outputs


setup(cmdclass={"build_py": BuildPyWithData})
