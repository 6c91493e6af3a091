"""Locates bundled data (templates, icons, example skills) in a checkout, a wheel or a frozen build."""
from __future__ import annotations

import sys
from functools import lru_cache
from pathlib import Path

_PACKAGE_DIR = Path(__file__).resolve().parent.parent


@lru_cache(maxsize=None)
def _data_root() -> Path:
    """The folder that holds `resources/` and `skills/`.

    Order matters: a frozen build unpacks next to the executable, a wheel carries the data
    inside the package (`kiraos_desktop/_data`), a source checkout keeps it at the repo root.
    """
    frozen_root = getattr(sys, "_MEIPASS", None)
    candidates = []
    if frozen_root:
        candidates.append(Path(frozen_root))
    candidates.append(_PACKAGE_DIR / "_data")
    candidates.append(_PACKAGE_DIR.parent)
    for root in candidates:
        if (root / "resources" / "templates").is_dir():
            return root
    raise FileNotFoundError(
        "KiraOS Desktop cannot find its resources folder; reinstall the application "
        f"(looked in: {', '.join(str(c) for c in candidates)})"
    )


def resources_dir() -> Path:
    return _data_root() / "resources"


def templates_dir() -> Path:
    return resources_dir() / "templates"


def icons_dir() -> Path:
    return resources_dir() / "icons"


def bundled_skills_dir() -> Path:
    return _data_root() / "skills"
