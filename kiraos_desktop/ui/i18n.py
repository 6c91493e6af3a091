"""The window's language: our catalogue and Qt's own, chosen by the setting or the system locale, switched live.

Installing or removing a QTranslator makes Qt send QEvent.LanguageChange to every widget; widgets whose
texts depend on state re-set them then, and texts set once are swapped (kiraos_desktop/ui/retranslate.py).
"""
from __future__ import annotations

import hashlib
import logging
import subprocess
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QLibraryInfo, QLocale, QObject, QTranslator
from PySide6.QtWidgets import QApplication

from kiraos_desktop.catalogues import FOLDER, SOURCE_LANGUAGE, CatalogueError, catalogue_stem, compile_catalogue
from kiraos_desktop.core.resources import resources_dir
from kiraos_desktop.ui.retranslate import TextSwap, messages, swap_static_texts

log = logging.getLogger(__name__)
SYSTEM = "system"
#: The setting's values; the names are shown in their own language in the Settings dialog.
LANGUAGE_NAMES = {"en": "English", "zh_CN": "简体中文"}
_MANAGER_NAME = "kiraosLanguageManager"


def system_language(locale: QLocale | None = None) -> str:
    """The UI language for a locale: Chinese of any region gets Simplified Chinese, anything else English."""
    locale = locale if locale is not None else QLocale.system()
    for name in locale.uiLanguages() or [locale.name()]:
        prefix = name.replace("-", "_").split("_")[0].lower()
        if prefix == "zh":
            return "zh_CN"
        if prefix == "en":
            return "en"
    return SOURCE_LANGUAGE


def resolve_language(setting: str | None, locale: QLocale | None = None) -> str:
    """"system" (or anything unknown) follows the locale; "en" and "zh_CN" are taken as they are."""
    return setting if setting in LANGUAGE_NAMES else system_language(locale)


def _cache_dir() -> Path:
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("kiraos-desktop", appauthor=False)) / "i18n"


def catalogue_file(language: str) -> Path | None:
    """The .qm of our catalogue for `language`, compiling the .ts into a cache when no fresh .qm was built.

    Builds (wheel, PyInstaller, `make run`) put the .qm beside the .ts; a plain checkout has only the .ts,
    and an edited .ts is newer than its .qm: both compile with PySide6's lrelease, once per content.
    """
    folder = resources_dir() / FOLDER
    stem = catalogue_stem(language)
    qm, ts = folder / f"{stem}.qm", folder / f"{stem}.ts"
    source_tree = (resources_dir().parent / "pyproject.toml").is_file()  # installs keep no build files
    if qm.is_file() and (not source_tree or not ts.is_file() or qm.stat().st_mtime >= ts.stat().st_mtime):
        return qm  # built by the wheel, PyInstaller or `make qm` (and not older than an edited .ts)
    if not ts.is_file():
        return None
    cached = _cache_dir() / f"{stem}-{hashlib.sha256(ts.read_bytes()).hexdigest()[:16]}.qm"
    if cached.is_file():
        return cached
    try:
        return compile_catalogue(ts, cached)
    except (CatalogueError, OSError, subprocess.SubprocessError) as exc:
        log.warning("cannot compile the %s translation: %s", language, exc)
        return qm if qm.is_file() else None


def qt_catalogue_file(language: str) -> Path | None:
    """Qt's own strings (standard buttons, file dialogs): qtbase_<language>.qm from Qt's translations folder.

    A frozen build may not report that folder through QLibraryInfo; it keeps it under PySide6/Qt/translations.
    """
    if language == SOURCE_LANGUAGE:
        return None
    import PySide6

    name = f"qtbase_{language}.qm"
    for folder in (Path(QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath)),
                   Path(PySide6.__file__).resolve().parent / "Qt" / "translations",
                   Path(PySide6.__file__).resolve().parent / "translations"):
        if (folder / name).is_file():
            return folder / name
    return None


class LanguageManager(QObject):
    """Holds the installed translators; apply() swaps them, and Qt retranslates through LanguageChange."""

    def __init__(self, app: QCoreApplication) -> None:
        super().__init__(app)
        self.setObjectName(_MANAGER_NAME)
        self._app = app
        self._translators: list[QTranslator] = []
        self._applied = False
        self.language = SOURCE_LANGUAGE

    def apply(self, setting: str | None) -> str:
        """Install the catalogues of the language the setting names; returns that language."""
        language = resolve_language(setting)
        if self._applied and language == self.language:
            return language
        old = self.language
        self.clear()
        for path in (qt_catalogue_file(language), catalogue_file(language)):
            if path is None:
                continue
            translator = QTranslator(self)
            if translator.load(str(path)):
                self._app.installTranslator(translator)
                self._translators.append(translator)
            else:
                log.warning("cannot load the translation %s", path)
        self.language = language
        self._applied = True
        if old != language:
            swap = TextSwap(messages(old), messages(language))
            for widget in QApplication.topLevelWidgets():
                swap_static_texts(widget, swap)
        return language

    def clear(self) -> None:
        """Back to the source texts (English, without its plural catalogue)."""
        for translator in self._translators:
            self._app.removeTranslator(translator)
            translator.deleteLater()
        self._translators = []
        self.language = SOURCE_LANGUAGE
        self._applied = False


def language_manager() -> LanguageManager | None:
    app = QCoreApplication.instance()
    if app is None:
        return None
    manager = app.findChild(LanguageManager, _MANAGER_NAME)
    return manager if manager is not None else LanguageManager(app)


def apply_language(setting: str | None) -> str:
    """Switch the running application to the language of `setting` ("system", "en", "zh_CN")."""
    manager = language_manager()
    return manager.apply(setting) if manager is not None else SOURCE_LANGUAGE


def current_language() -> str:
    manager = language_manager()
    return manager.language if manager is not None else SOURCE_LANGUAGE
