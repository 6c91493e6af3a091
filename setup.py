"""Wheel build hook: copies the repo-root resources/ and skills/ into kiraos_desktop/_data/."""
from __future__ import annotations

import os
import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
#: Repo-root folders that a wheel carries under kiraos_desktop/_data/ (core/resources.py looks there).
DATA_FOLDERS = ("resources", "skills")
DATA_PACKAGE_DIR = Path("kiraos_desktop", "_data")


def _data_files() -> list[tuple[Path, Path]]:
    """(source, path relative to the data package dir) for every file to ship, caches and dotfiles skipped."""
    files = []
    for folder in DATA_FOLDERS:
        base = ROOT / folder
        for dirpath, dirnames, filenames in os.walk(base):
            dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d != "__pycache__")
            for name in sorted(filenames):
                if name.startswith(".") or name.endswith((".pyc", ".pyo")):
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

    def get_outputs(self, include_bytecode: bool = True) -> list[str]:
        outputs = super().get_outputs(include_bytecode)
        if not getattr(self, "editable_mode", False):
            target = Path(self.build_lib, DATA_PACKAGE_DIR)
            outputs += [str(target / relative) for _, relative in _data_files()]
        return outputs


setup(cmdclass={"build_py": BuildPyWithData})
