"""Shared test setup: offscreen Qt before any Qt import, and a data dir per test."""
import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.pop("KIRAOS_DATA_DIR", None)

import pytest  # noqa: E402


@pytest.fixture
def data_dir(tmp_path):
    path = tmp_path / "data"
    path.mkdir()
    return path
