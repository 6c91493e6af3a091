"""On POSIX a standalone data dir is private (folders 0700, database files 0600); a companion install keeps its modes."""
from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from kiraos_desktop.core.engine import Engine
from kiraos_desktop.core.paths import readable_by_others

pytestmark = pytest.mark.skipif(os.name != "posix", reason="POSIX permissions")


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture(autouse=True)
def usual_umask():
    old = os.umask(0o022)  # what most desktops use: new files 0644, folders 0755
    yield
    os.umask(old)


def test_a_new_standalone_data_dir_is_private(tmp_path):
    data = tmp_path / "new"
    engine = Engine.open(data_dir=data)
    try:
        engine.tools.call("memory_update", "u1", {"operations": [{"op": "set", "key": "k", "value": "v"}]},
                          actor="tool")
        paths = engine.paths
        for folder in (data, data / "memory", paths.backups_dir, paths.logs_dir):
            assert mode(folder) == 0o700, folder
        existing = [p for p in paths.database_files if p.exists()]
        assert paths.db_path in existing and len(existing) >= 2  # the -wal (and -shm) of an open WAL database
        for path in existing:
            assert mode(path) == 0o600, path
        assert engine.api_token and mode(paths.token_file) == 0o600
        assert not any(readable_by_others(m) for _, m in paths.database_modes())
    finally:
        engine.close()


def test_an_existing_standalone_data_dir_is_made_private(tmp_path):
    data = tmp_path / "old"
    Engine.open(data_dir=data).close()
    for folder in (data, data / "memory", data / "backups", data / "logs"):
        os.chmod(folder, 0o755)
    db = data / "memory" / "kiraos.db"
    os.chmod(db, 0o644)
    wal = db.with_name("kiraos.db-wal")
    wal.write_bytes(b"")
    os.chmod(wal, 0o664)
    engine = Engine.open(data_dir=data)
    try:
        for folder in (data, data / "memory", data / "backups", data / "logs"):
            assert mode(folder) == 0o700, folder
        assert mode(db) == 0o600
        assert mode(wal) == 0o600 or not wal.exists()
    finally:
        engine.close()


def test_a_companion_install_keeps_its_modes(tmp_path, monkeypatch):
    kira = tmp_path / "kira"
    (kira / "memory").mkdir(parents=True)
    (kira / "skills").mkdir()
    db = kira / "memory" / "kiraos.db"
    import sqlite3

    sqlite3.connect(db).close()
    os.chmod(kira / "memory", 0o755)
    os.chmod(db, 0o644)
    ours = tmp_path / "ours"
    monkeypatch.setenv("KIRAOS_DATA_DIR", str(ours))  # our settings and token, apart from the plugin's folder
    engine = Engine.open(kira_data=kira)
    try:
        engine.store.set_profile("u", "k", "v", actor="gui")
        assert mode(kira / "memory") == 0o755 and mode(db) == 0o644
        assert mode(ours) == 0o700  # our settings and token
        modes = dict(engine.paths.database_modes())
        assert modes[kira / "memory"] == 0o755 and modes[db] == 0o644
        assert readable_by_others(modes[db])
    finally:
        engine.close()
