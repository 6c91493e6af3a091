"""About dialog: version, data paths, and licenses read from the installed package metadata."""
import platform
import sqlite3
import ssl
import sys
from importlib import metadata

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QTableView

import kiraos_desktop
from kiraos_desktop.core.engine import Engine
from kiraos_desktop.core.paths import DataPaths
from kiraos_desktop.ui import about_dialog
from kiraos_desktop.ui.about_dialog import AboutDialog, bundled_icu_version, bundled_licenses, declared_license

pytestmark = pytest.mark.qt_log_ignore("This plugin does not support propagateSizeHints")


def label(dialog, name):
    return dialog.findChild(QLabel, name).text()


def test_shows_version_and_paths(qtbot, engine):
    dialog = AboutDialog(engine.paths)
    qtbot.addWidget(dialog)
    assert kiraos_desktop.__version__ in label(dialog, "aboutTitle")
    assert label(dialog, "dataDir") == str(engine.paths.data_dir)
    assert label(dialog, "database") == str(engine.paths.db_path)
    assert label(dialog, "skillsDir") == str(engine.paths.skills_dir)
    assert label(dialog, "settingsFile") == str(engine.paths.settings_file)
    assert label(dialog, "mode") == "standalone"


def test_shows_logs_folder_and_token_file_but_not_the_token(qtbot, engine):
    token = engine.api_token  # written to the token file on first use
    assert engine.paths.token_file.read_text(encoding="utf-8").strip() == token
    dialog = AboutDialog(engine.paths)
    qtbot.addWidget(dialog)
    assert label(dialog, "logsDir") == str(engine.paths.data_dir / "logs")
    assert label(dialog, "tokenFile") == str(engine.paths.data_dir / "api-token")
    for name in ("logsDir", "tokenFile"):
        field = dialog.findChild(QLabel, name)
        assert field.textInteractionFlags() & Qt.TextInteractionFlag.TextSelectableByMouse  # as the other paths
    texts = [widget.text() for widget in dialog.findChildren(QLabel)]
    texts += [widget.toolTip() for widget in dialog.findChildren(QLabel)]
    assert not any(token in text for text in texts)


def test_takes_the_paths_alone(qtbot, tmp_path):
    root = tmp_path / "somewhere"
    paths = DataPaths(root, tmp_path / "db" / "kiraos.db", tmp_path / "my-skills")
    dialog = AboutDialog(paths)
    qtbot.addWidget(dialog)
    assert label(dialog, "database") == str(tmp_path / "db" / "kiraos.db")
    assert label(dialog, "skillsDir") == str(tmp_path / "my-skills")
    assert label(dialog, "logsDir") == str(root / "logs")
    assert label(dialog, "tokenFile") == str(root / "api-token")
    assert label(dialog, "backupsDir") == str(root / "backups")


def test_companion_mode_is_named(qtbot, tmp_path, monkeypatch):
    (tmp_path / "kira" / "memory").mkdir(parents=True)
    monkeypatch.setenv("KIRAOS_DATA_DIR", str(tmp_path / "own"))
    eng = Engine.open(kira_data=tmp_path / "kira")
    try:
        dialog = AboutDialog(eng.paths)
        qtbot.addWidget(dialog)
        assert "companion" in label(dialog, "mode")
        assert label(dialog, "database") == str((tmp_path / "kira" / "memory" / "kiraos.db").resolve())
    finally:
        eng.close()


def test_licenses_come_from_the_installed_metadata(qtbot, engine, qtmodeltester):
    infos = {info.component: info for info in bundled_licenses()}
    assert infos["peewee"].license == "MIT" and infos["peewee"].verified
    assert infos["Jinja2"].license == "BSD-3-Clause"
    assert infos["Starlette"].license == "BSD-3-Clause"
    assert "LGPL-3.0" in infos["Qt / PySide6"].license
    assert "MIT" in infos["uvloop"].license and "Apache" in infos["uvloop"].license
    for info in infos.values():
        assert info.verified, info
        assert info.version
    assert infos["peewee"].version == metadata.version("peewee")
    dialog = AboutDialog(engine.paths)
    qtbot.addWidget(dialog)
    model = dialog.license_model
    qtmodeltester.check(model)
    rows = {model.index(r, 0).data(): model.index(r, 2).data() for r in range(model.rowCount())}
    assert rows["peewee"] == "MIT"
    tip = model.index(0, 2).data(Qt.ItemDataRole.ToolTipRole)
    assert "metadata" in tip


def test_long_license_table_scrolls_instead_of_stretching_the_dialog(qtbot, engine):
    dialog = AboutDialog(engine.paths)
    qtbot.addWidget(dialog)
    view = dialog.findChild(QTableView, "licenses")
    rows = dialog.license_model.rowCount()
    row_height = view.verticalHeader().defaultSectionSize()
    assert rows > AboutDialog.MIN_VISIBLE_ROWS
    assert row_height * AboutDialog.MIN_VISIBLE_ROWS <= view.minimumHeight() < row_height * rows
    limit = dialog.screen().availableGeometry().height() * 0.75
    assert dialog.height() <= max(limit, dialog.minimumSizeHint().height())


def test_missing_metadata_is_marked_not_verified(qtbot, engine, monkeypatch):
    def missing(name):
        raise metadata.PackageNotFoundError(name)
    monkeypatch.setattr(about_dialog.metadata, "distribution", missing)
    infos = bundled_licenses()
    packages = [info for info in infos if not info.native]
    assert packages and not any(info.verified for info in packages)
    dialog = AboutDialog(engine.paths)
    qtbot.addWidget(dialog)
    model = dialog.license_model
    peewee_row = [r for r in range(model.rowCount()) if model.index(r, 0).data() == "peewee"][0]
    assert model.index(peewee_row, 2).data() == "MIT (not verified)"
    assert model.index(peewee_row, 1).data() == "not installed"


# Installed with the app's own dependencies and imported when the API starts (jsonschema, starlette, uvicorn).
DEPENDENCIES = {
    "AnyIO": ("anyio", "MIT"),
    "idna": ("idna", "BSD-3-Clause"),
    "h11": ("h11", "MIT"),
    "Click": ("click", "BSD-3-Clause"),
    "attrs": ("attrs", "MIT"),
    "referencing": ("referencing", "MIT"),
    "rpds-py": ("rpds-py", "MIT"),
    "jsonschema-specifications": ("jsonschema-specifications", "MIT"),
    "typing_extensions": ("typing_extensions", "PSF-2.0"),
    # The PostgreSQL driver, imported only in that mode.
    "psycopg": ("psycopg", "LGPL-3.0-only"),
    "psycopg-binary": ("psycopg-binary", "LGPL-3.0-only"),
}


@pytest.mark.parametrize("component", sorted(DEPENDENCIES))
def test_lists_the_packages_pulled_in_by_the_direct_dependencies(component):
    dist, expected = DEPENDENCIES[component]
    infos = {info.component: info for info in bundled_licenses()}
    assert component in infos
    info = infos[component]
    assert info.verified and not info.native
    assert info.version == metadata.version(dist)
    assert info.license == expected


def test_lists_the_native_libraries_with_their_runtime_versions(qtbot, engine):
    infos = {info.component: info for info in bundled_licenses()}
    assert infos["Python"].version == platform.python_version()
    assert infos["Python"].license == "PSF-2.0"
    assert infos["OpenSSL"].version and infos["OpenSSL"].version in ssl.OPENSSL_VERSION
    assert infos["OpenSSL"].license == ("Apache-2.0" if ssl.OPENSSL_VERSION_INFO[0] >= 3 else "OpenSSL AND SSLeay")
    assert infos["SQLite"].version == sqlite3.sqlite_version
    assert infos["SQLite"].license == "Public domain"
    if sys.platform.startswith("linux"):  # the Linux PySide6 wheels ship Qt's own ICU
        assert infos["ICU"].version.isdigit()
        assert infos["ICU"].license in ("Unicode-DFS-2016", "Unicode-3.0")
    from psycopg import pq

    assert infos["libpq"].version == about_dialog.libpq_version(pq.version())
    assert infos["libpq"].license == "PostgreSQL"
    for name in ("Python", "OpenSSL", "SQLite", "libpq"):
        assert infos[name].native and infos[name].verified
    dialog = AboutDialog(engine.paths)
    qtbot.addWidget(dialog)
    model = dialog.license_model
    row = [r for r in range(model.rowCount()) if model.index(r, 0).data() == "SQLite"][0]
    assert model.index(row, 2).data() == "Public domain"  # no "(not verified)"
    assert "sqlite3.sqlite_version" in model.index(row, 2).data(Qt.ItemDataRole.ToolTipRole)


def test_icu_is_found_by_the_file_name_of_the_qt_copy(tmp_path):
    assert bundled_icu_version([tmp_path]) is None  # Qt uses the system's ICU: nothing bundled to list
    (tmp_path / "libicudata.so.74").write_bytes(b"")
    assert bundled_icu_version([tmp_path]) is None
    (tmp_path / "libicuuc.so.74").write_bytes(b"")
    assert bundled_icu_version([tmp_path]) == "74"
    windows = tmp_path / "win"
    windows.mkdir()
    (windows / "icuuc72.dll").write_bytes(b"")
    assert bundled_icu_version([windows]) == "72"


def test_libpq_version_reads_like_postgresql_writes_it():
    assert about_dialog.libpq_version(180006) == "18.6"
    assert about_dialog.libpq_version(170000) == "17.0"
    assert about_dialog.libpq_version(90624) == "9.6.24"


def test_libpq_is_listed_unverified_when_psycopg_cannot_load(monkeypatch):
    monkeypatch.setitem(sys.modules, "psycopg", None)  # what `import psycopg` sees without a libpq wrapper
    info = {i.component: i for i in about_dialog.native_licenses()}["libpq"]
    assert (info.version, info.license, info.verified, info.native) == ("", "PostgreSQL", False, True)


def test_icu_license_follows_its_version(monkeypatch):
    monkeypatch.setattr(about_dialog, "bundled_icu_version", lambda: "74")
    assert {i.component: i for i in about_dialog.native_licenses()}["ICU"].license == "Unicode-3.0"
    monkeypatch.setattr(about_dialog, "bundled_icu_version", lambda: "73")
    assert {i.component: i for i in about_dialog.native_licenses()}["ICU"].license == "Unicode-DFS-2016"
    monkeypatch.setattr(about_dialog, "bundled_icu_version", lambda: None)
    assert "ICU" not in {i.component for i in about_dialog.native_licenses()}


class FakeDist:
    def __init__(self, meta, files=()):
        self.metadata = FakeMeta(meta)
        self.files = list(files)

    def locate_file(self, name):
        raise OSError(name)


class FakeMeta(dict):
    def get_all(self, key):
        value = self.get(key)
        return None if value is None else list(value)


def test_declared_license_prefers_the_expression():
    dist = FakeDist({"License-Expression": "Apache-2.0", "License": "MIT", "Classifier": ["License :: X"]})
    assert declared_license(dist) == ("Apache-2.0", "License-Expression")


def test_declared_license_merges_field_and_classifiers():
    dist = FakeDist({"License": "MIT License", "Classifier": [
        "License :: OSI Approved :: MIT License", "License :: OSI Approved :: Apache Software License"]})
    assert declared_license(dist) == ("MIT License / Apache Software License", "License")


def test_declared_license_none_when_nothing_is_declared():
    assert declared_license(FakeDist({})) is None


def test_every_listed_component_has_its_metadata_bundled_by_the_frozen_build():
    # The frozen About dialog reads licenses from dist-info folders that build.spec copies; a
    # component missing from its list fails the frozen self-test (only CI's `make selftest-dist` saw it).
    from pathlib import Path

    spec = (Path(kiraos_desktop.__file__).resolve().parent.parent / "build.spec").read_text(encoding="utf-8")
    listed = spec[spec.index("BUNDLED_DISTRIBUTIONS = ["):]
    listed = listed[:listed.index("]\n")]
    missing = [component for component, names, _ in about_dialog.COMPONENTS
               if not any(f'"{name}"' in listed for name in names)]
    assert not missing, f"add to BUNDLED_DISTRIBUTIONS in build.spec: {missing}"
    assert {"PyYAML", "MCP Python SDK"} <= {component for component, _, _ in about_dialog.COMPONENTS}
