"""About dialog: version, data paths, and the licenses of bundled components read from their metadata."""
from __future__ import annotations

import platform
import re
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

import PySide6
from PySide6.QtCore import (
    QAbstractTableModel,
    QCoreApplication,
    QLibraryInfo,
    QModelIndex,
    QObject,
    Qt,
    qVersion,
)
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QGroupBox,
    QHeaderView,
    QLabel,
    QTableView,
    QVBoxLayout,
    QWidget,
)

import kiraos_desktop
from kiraos_desktop.core.paths import DataPaths

# (shown name, distribution names to try, the license we expect)
COMPONENTS: tuple[tuple[str, tuple[str, ...], str], ...] = (
    ("Qt / PySide6", ("PySide6_Essentials", "PySide6-Essentials", "PySide6"), "LGPL-3.0-only"),
    ("Shiboken6", ("shiboken6",), "LGPL-3.0-only"),
    ("peewee", ("peewee",), "MIT"),
    ("Jinja2", ("Jinja2", "jinja2"), "BSD-3-Clause"),
    ("MarkupSafe", ("MarkupSafe", "markupsafe"), "BSD-3-Clause"),
    ("Starlette", ("starlette",), "BSD-3-Clause"),
    ("AnyIO", ("anyio",), "MIT"),
    ("idna", ("idna",), "BSD-3-Clause"),
    ("uvicorn", ("uvicorn",), "BSD-3-Clause"),
    ("h11", ("h11",), "MIT"),
    ("Click", ("click",), "BSD-3-Clause"),
    ("httptools", ("httptools",), "MIT"),
    ("uvloop", ("uvloop",), "MIT OR Apache-2.0"),
    ("jsonschema", ("jsonschema",), "MIT"),
    ("jsonschema-specifications", ("jsonschema-specifications", "jsonschema_specifications"), "MIT"),
    ("referencing", ("referencing",), "MIT"),
    ("rpds-py", ("rpds-py", "rpds_py"), "MIT"),
    ("attrs", ("attrs",), "MIT"),
    ("typing_extensions", ("typing_extensions", "typing-extensions"), "PSF-2.0"),
    ("platformdirs", ("platformdirs",), "MIT"),
    ("rjieba", ("rjieba",), "MIT"),
    ("PyYAML", ("PyYAML", "pyyaml"), "MIT"),
    ("MCP Python SDK", ("mcp",), "MIT"),
    ("psycopg", ("psycopg",), "LGPL-3.0-only"),
    ("psycopg-binary", ("psycopg-binary", "psycopg_binary"), "LGPL-3.0-only"),
)

# Recognisable first lines of license texts, for packages that only ship the file.
_TEXT_MARKERS = (
    ("Permission is hereby granted, free of charge", "MIT"),
    ("GNU LESSER GENERAL PUBLIC LICENSE", "LGPL-3.0"),
    ("Apache License", "Apache-2.0"),
)


@dataclass(frozen=True)
class LicenseInfo:
    component: str
    version: str
    license: str
    source: str  # where `license` (or, for a native library, `version`) came from; "" when verified nowhere
    verified: bool
    native: bool = False  # a shared library without package metadata (Python, OpenSSL, SQLite, libpq, ICU)


def _from_text(text: str) -> str | None:
    for marker, name in _TEXT_MARKERS:
        if marker.lower() in text.lower():
            return name
    if "Redistribution and use in source and binary forms" in text:
        return "BSD-3-Clause" if re.search(r"neither the name", text, re.IGNORECASE) else "BSD-2-Clause"
    return None


def _license_files(dist: metadata.Distribution) -> list[str]:
    names = [str(f) for f in (dist.files or []) if re.search(r"(LICEN[CS]E|COPYING)", str(f).upper())]
    texts = []
    for name in names[:3]:
        try:
            texts.append(dist.locate_file(name).read_text(encoding="utf-8", errors="replace")[:4000])
        except OSError:
            continue
    return texts


def _norm(name: str) -> str:
    return re.sub(r"\s+license$", "", name.strip().lower())


def declared_license(dist: metadata.Distribution) -> tuple[str, str] | None:
    """(license, source) as the package declares it: License-Expression, else the License field and
    the license classifiers, refined by the license file when the classifier is generic (BSD)."""
    meta = dist.metadata
    expression = (meta.get("License-Expression") or "").strip()
    if expression:
        return expression, "License-Expression"
    field = (meta.get("License") or "").strip()
    parts: list[str] = []
    if field and len(field) <= 80 and "\n" not in field:
        parts.append(field)
    for classifier in meta.get_all("Classifier") or []:
        if classifier.startswith("License ::") and "OSI Approved ::" in classifier:
            name = classifier.split("::")[-1].strip()
            if _norm(name) not in {_norm(p) for p in parts}:
                parts.append(name)
    from_file = next(filter(None, (_from_text(t) for t in _license_files(dist) + [field])), None)
    if parts:
        if len(parts) == 1 and from_file and from_file.lower().startswith(_norm(parts[0])):
            return from_file, "license file"
        return " / ".join(parts), "License" if field in parts else "classifier"
    if from_file:
        return from_file, "license file"
    return None


def license_info(component: str, dist_names: tuple[str, ...], expected: str) -> LicenseInfo:
    for name in dist_names:
        try:
            dist = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            continue
        found = declared_license(dist)
        if found:
            return LicenseInfo(component, dist.version or "", found[0], found[1], True)
        return LicenseInfo(component, dist.version or "", expected, "", False)
    return LicenseInfo(component, "", expected, "", False)


def _qt_library_folders() -> list[Path]:
    """Where the PySide6 wheel (or the frozen build's copy of it) keeps the Qt shared libraries."""
    package = Path(PySide6.__file__).resolve().parent
    folders = [Path(QLibraryInfo.path(QLibraryInfo.LibraryPath.LibrariesPath)), package / "Qt" / "lib", package]
    return [folder for folder in dict.fromkeys(folders) if folder.is_dir()]


def bundled_icu_version(folders: list[Path] | None = None) -> str | None:
    """ICU's major version when Qt ships its own ICU (the Linux wheels do), None when Qt uses the system's."""
    for folder in _qt_library_folders() if folders is None else folders:
        for path in sorted(folder.glob("*icuuc*")):
            match = re.search(r"icuuc\D*?(\d+)", path.name)
            if match:
                return match.group(1)
    return None


def libpq_version(number: int) -> str:
    """libpq's version number as PostgreSQL writes it: 170005 is 17.5, 90624 is 9.6.24."""
    if number >= 100000:
        return f"{number // 10000}.{number % 10000}"
    return f"{number // 10000}.{number // 100 % 100}.{number % 100}"


def native_licenses() -> list[LicenseInfo]:
    """The native libraries the app runs on: the version is asked of the library itself; they carry no
    package metadata, so the license is the one each is published under."""
    infos = [LicenseInfo("Python", platform.python_version(), "PSF-2.0", "platform.python_version()", True, True)]
    try:
        import ssl
    except ImportError:  # a Python built without OpenSSL
        infos.append(LicenseInfo("OpenSSL", "", "Apache-2.0", "", False, True))
    else:
        version = ssl.OPENSSL_VERSION.split()[1] if len(ssl.OPENSSL_VERSION.split()) > 1 else ""
        # OpenSSL moved to the Apache License with 3.0; 1.x used the OpenSSL and SSLeay licenses.
        name = "Apache-2.0" if ssl.OPENSSL_VERSION_INFO[0] >= 3 else "OpenSSL AND SSLeay"
        infos.append(LicenseInfo("OpenSSL", version, name, "ssl.OPENSSL_VERSION", bool(version), True))
    public_domain = QCoreApplication.translate("LicenseModel", "Public domain")
    try:
        import sqlite3
    except ImportError:
        infos.append(LicenseInfo("SQLite", "", public_domain, "", False, True))
    else:
        infos.append(LicenseInfo("SQLite", sqlite3.sqlite_version, public_domain, "sqlite3.sqlite_version", True, True))
    try:
        from psycopg import pq
    except ImportError:  # psycopg missing, or without a libpq to load
        infos.append(LicenseInfo("libpq", "", "PostgreSQL", "", False, True))
    else:
        version = libpq_version(pq.version())
        infos.append(LicenseInfo("libpq", version, "PostgreSQL", "psycopg.pq.version()", True, True))
    icu = bundled_icu_version()
    if icu is not None:
        # ICU 74 adopted the Unicode License v3; earlier releases use the Unicode data files and software license.
        name = "Unicode-3.0" if int(icu) >= 74 else "Unicode-DFS-2016"
        source = QCoreApplication.translate("LicenseModel", "the file name of Qt's ICU library")
        infos.append(LicenseInfo("ICU", icu, name, source, True, True))
    return infos


def bundled_licenses() -> list[LicenseInfo]:
    infos = [license_info(*entry) for entry in COMPONENTS]
    # The Qt libraries ship inside the PySide6 wheel; show the Qt runtime version beside it.
    if infos and infos[0].version != qVersion():
        infos[0] = LicenseInfo(infos[0].component, f"{infos[0].version} (Qt {qVersion()})".strip(),
                               infos[0].license, infos[0].source, infos[0].verified)
    return infos + native_licenses()


class LicenseModel(QAbstractTableModel):
    """Component, version, license as declared in the package metadata."""

    def __init__(self, infos: list[LicenseInfo], parent: QObject | None = None):
        super().__init__(parent)
        self._infos = list(infos)

    def rowCount(self, parent: QModelIndex = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self._infos)

    def columnCount(self, parent: QModelIndex = QModelIndex()) -> int:
        return 0 if parent.isValid() else 3

    def data(self, index: QModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._infos):
            return None
        info = self._infos[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            if index.column() == 0:
                return info.component
            if index.column() == 1:
                return info.version or self.tr("not installed")
            return info.license if info.verified else self.tr("{0} (not verified)").format(info.license)
        if role == Qt.ItemDataRole.ToolTipRole and index.column() == 2:
            if info.native and info.verified:
                return self.tr("A native library without package metadata: the version comes from {0}, the "
                               "license is the one the library is published under.").format(info.source)
            if info.native:
                return self.tr("This native library is not available in this build.")
            if info.verified:
                return self.tr("From the package metadata ({0}).").format(info.source)
            return self.tr("The package metadata is not available; this is the license the component "
                           "is known to use.")
        return None

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole and 0 <= section < 3:
            return (self.tr("Component"), self.tr("Version"), self.tr("License"))[section]
        return None


class AboutDialog(QDialog):
    """Help > About. Construct with `AboutDialog(engine.paths, parent)` and `exec()`.

    Shows the paths of `paths` (data folder, database, skills, settings, backups, logs, API token file).
    """

    MIN_VISIBLE_ROWS = 8  # the license table scrolls below this many rows

    def __init__(self, paths: DataPaths, parent: QWidget | None = None, *, database: str = ""):
        """`database`: what to show as the database (the engine's `database_label`; default the SQLite file)."""
        super().__init__(parent)
        self._database = database or str(paths.db_path)
        self.setWindowTitle(self.tr("About KiraOS Desktop"))
        self.setMinimumWidth(620)
        layout = QVBoxLayout(self)

        title = QLabel(f"KiraOS Desktop {kiraos_desktop.__version__}")
        title.setObjectName("aboutTitle")
        font = title.font()
        font.setPointSizeF(font.pointSizeF() * 1.5)
        font.setBold(True)
        title.setFont(font)
        title.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(title)
        summary = QLabel(self.tr("Memory manager and skill workbench for chatbots, compatible with the KiraOS "
                                 "plugin.\nRunning on Python {0}, Qt {1}.").format(platform.python_version(), qVersion()))
        layout.addWidget(summary)

        box = QGroupBox(self.tr("Data"))
        form = QFormLayout(box)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        mode = self.tr("companion (KiraOS plugin data)") if paths.companion else self.tr("standalone")
        rows = ((self.tr("Mode:"), mode, "mode"),
                (self.tr("Data folder:"), str(paths.data_dir), "dataDir"),
                (self.tr("Database:"), self._database, "database"),
                (self.tr("Skills folder:"), str(paths.skills_dir), "skillsDir"),
                (self.tr("Settings file:"), str(paths.settings_file), "settingsFile"),
                (self.tr("Backups:"), str(paths.backups_dir), "backupsDir"),
                (self.tr("Logs folder:"), str(paths.logs_dir), "logsDir"),
                (self.tr("API token file:"), str(paths.token_file), "tokenFile"))
        for label, value, name in rows:
            field = QLabel(value)
            field.setObjectName(name)
            if name == "tokenFile":
                field.setToolTip(self.tr("The file that holds the API's bearer token when none is set in the "
                                         "settings. The API page shows and copies the token."))
            field.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            form.addRow(label, field)
        layout.addWidget(box)

        licenses = QGroupBox(self.tr("Bundled components"))
        column = QVBoxLayout(licenses)
        self.license_model = LicenseModel(bundled_licenses(), self)
        view = QTableView()
        view.setObjectName("licenses")
        view.setTabKeyNavigation(False)
        view.setModel(self.license_model)
        view.verticalHeader().setVisible(False)
        view.setSelectionMode(QTableView.SelectionMode.NoSelection)
        view.setWordWrap(False)
        view.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        view.verticalHeader().setDefaultSectionSize(view.fontMetrics().height() + 8)
        header = view.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        rows_shown = self.license_model.rowCount()
        row_height = view.verticalHeader().defaultSectionSize()
        chrome = view.horizontalHeader().sizeHint().height() + 2 * view.frameWidth()
        view.setMinimumHeight(row_height * min(rows_shown, self.MIN_VISIBLE_ROWS) + chrome)
        column.addWidget(view)
        note = QLabel(self.tr("KiraOS Desktop is MIT licensed. Qt, PySide6 and psycopg are used under the "
                              "LGPLv3:\nthe Qt libraries and psycopg ship as separate files that you may replace."))
        column.addWidget(note)
        layout.addWidget(licenses, 1)

        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        # Open tall enough for every license row, as far as three quarters of the screen allow.
        size = self.sizeHint().expandedTo(self.minimumSizeHint())
        screen = self.screen()
        room = int(screen.availableGeometry().height() * 0.75) - size.height() if screen is not None else 0
        extra_rows = max(0, min(rows_shown - self.MIN_VISIBLE_ROWS, room // row_height))
        size.setHeight(size.height() + extra_rows * row_height)
        self.resize(size)
