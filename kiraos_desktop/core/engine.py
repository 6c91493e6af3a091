"""The application service: wires settings, store, context, memory tools, skills and tool registry."""
from __future__ import annotations

import logging
import threading
from pathlib import Path
from typing import Callable

from kiraos_desktop.core.context.builder import ContextBuilder
from kiraos_desktop.core.context.source import ContextSource, MemoryToolSet
from kiraos_desktop.core.disk_follow import DataFolderFollower
from kiraos_desktop.core.storage.database_url import DatabaseUrl, DatabaseUrlError, choose_database_url
from kiraos_desktop.core.tools.memory_tools import MemoryTools
from kiraos_desktop.core.paths import DataPaths, resolve_paths
from kiraos_desktop.core.storage.postgres.notify import ChangeListener
from kiraos_desktop.core.storage.plugin_layout import check_kira_folder, tree_layout
from kiraos_desktop.core.memory.records import StoreError
from kiraos_desktop.core.settings import Settings, SettingsError, load_settings, save_settings
from kiraos_desktop.core.skills.agent_io import remove_stale_staging
from kiraos_desktop.core.skills import SkillRouter, install_bundled_skills
from kiraos_desktop.core.storage.protocol import MemoryStore
from kiraos_desktop.core.storage.sqlite.store import SqliteStore
from kiraos_desktop.core.token import generate_token, load_or_create_token, save_token
from kiraos_desktop.core.tool_registry import ToolRegistry
from kiraos_desktop.core.watcher import ExternalChangeWatcher

log = logging.getLogger(__name__)
# The watcher ticks this often to checkpoint under heavy writing; it polls for other processes'
# commits every TICKS_PER_POLL ticks (about once a second).
WATCH_TICK_S = 0.1
TICKS_PER_POLL = 10
SettingsListener = Callable[[Settings, Settings], None]


class Engine:
    """One per process. The API and the UI both receive it; neither builds its own store."""

    def __init__(self, paths: DataPaths, settings: Settings, *, settings_warnings: list[str] | None = None,
                 install_examples: bool = True, database_url: DatabaseUrl | None = None):
        first_start = not paths.settings_file.exists()
        tree = _tree_folder(paths)
        paths.ensure(sqlite=database_url is None and tree is None)
        self.paths = paths
        self._settings = settings
        self.settings_warnings = list(settings_warnings or [])
        self._listeners: list[SettingsListener] = []
        self._lock = threading.Lock()
        self._edit_lock = threading.RLock()  # one read-change-write of settings.json at a time
        self.database_url = database_url  # None: the SQLite database at paths.db_path
        if tree is not None:  # a KiraOS 3.x tree: served as the plugin injects it, written by memory_update
            from kiraos_desktop.core.context.tree import TreeContext
            from kiraos_desktop.core.tools.tree_tools import TreeMemoryTools
            from kiraos_desktop.core.storage.tree.store import TreeMemoryStore

            tree_store = TreeMemoryStore(tree, data_dir=paths.data_dir)
            tree_store.edits.recover()  # an edit a stopped process left half done: finished or rolled back
            self.store: MemoryStore = tree_store
            tree_context = TreeContext(tree_store, lambda: self._settings)
            self.context: ContextSource = tree_context
            self.memory_tools: MemoryToolSet = TreeMemoryTools(tree_store, tree_context, tree_store.edits)
        else:
            self.store = _open_store(paths, settings, database_url)
            self.context = ContextBuilder(self.store, lambda: self._settings)
            self.memory_tools = MemoryTools(self.store, lambda: self._settings)
        if first_start:
            if install_examples and not paths.companion:
                copied = install_bundled_skills(paths.skills_dir)
                log.info("installed example skills: %s", ", ".join(copied) or "none")
            save_settings(paths.settings_file, settings)
        if paths.skills_dir.is_dir():
            remove_stale_staging(paths.skills_dir)  # what a killed import left (it would stay for ever)
        self.skills = SkillRouter(paths.skills_dir, disabled=settings.disabled_skills)
        self.tools = ToolRegistry(self.memory_tools, self.skills, self.context.block_text)
        self._ticks = 0
        self._build_recall = False
        self._watcher = ExternalChangeWatcher(self._on_watch_tick, interval=WATCH_TICK_S)
        # What the command line, another process or an editor writes to the skills folder and
        # settings.json is what this process serves and shows (checked with other processes' commits).
        self._disk = DataFolderFollower(lambda: self.skills.skills_dir, paths.settings_file,
                                        self.skills.reload, self.reload_settings)
        # On a shared PostgreSQL database: other instances' writes, heard through LISTEN/NOTIFY.
        self.change_listener: ChangeListener | None = None
        if database_url is not None:
            self.change_listener = ChangeListener(database_url.connect_url(), self.store.changes)

    @classmethod
    def open(cls, data_dir=None, kira_data=None, db=None, skills_dir=None, install_examples: bool = True,
             database_url: str | None = None) -> "Engine":
        """`database_url`: the --database-url option (None: not given; "": the SQLite database even when
        $KIRAOS_DATABASE_URL or the setting names a server). Raises DatabaseUrlError (a ValueError)
        for a bad URL and StoreError (StoreUnavailable) when the server cannot be used."""
        if kira_data:
            check_kira_folder(kira_data)
        base = resolve_paths(data_dir=data_dir, kira_data=kira_data)
        settings, unknown = load_settings(base.settings_file)
        paths = resolve_paths(data_dir=data_dir, kira_data=kira_data, db=db, skills_dir=skills_dir,
                              configured_skills_dir=settings.skills_dir)
        warnings = [f"unknown setting ignored: {key}" for key in unknown]
        url = choose_database_url(database_url, settings.database_url)
        if url is not None and (kira_data or db):
            given = "--kira-data" if kira_data else "--db"
            if database_url:
                raise DatabaseUrlError(f"use either {given} or --database-url, not both")
            warnings.append(f"{given} names a SQLite database: the database URL ({url.source}) is not used")
            url = None
        return cls(paths, settings, settings_warnings=warnings, install_examples=install_examples, database_url=url)

    @property
    def database_label(self) -> str:
        """Which database is in use, for display: the redacted URL, or the SQLite file."""
        return self.store.location

    # ---- settings ------------------------------------------------------------------------

    @property
    def settings(self) -> Settings:
        return self._settings

    def on_settings_changed(self, listener: SettingsListener) -> Callable[[], None]:
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener)

    def update_settings(self, new: Settings) -> None:
        """Persist atomically, then apply: limits, disabled skills, context cache, listeners.
        Writes every field: a writer that changes some fields uses edit_settings()."""
        self._adopt_settings(new, save=True)

    def edit_settings(self, edit: Callable[[Settings], Settings]) -> Settings:
        """Apply `edit` to the settings as settings.json holds them now (another process, the command
        line or a hand edit may have changed it since this process read it), save and adopt the
        result, which is returned. A writer changes only what it means to: `edit` replaces the fields
        its user changed and keeps the rest as found. Raises SettingsError when `edit` makes a bad
        value, OSError when the file cannot be written (nothing is adopted then)."""
        with self._edit_lock:
            try:
                current, _ = load_settings(self.paths.settings_file)
            except (OSError, SettingsError) as exc:  # unreadable now: edit what this process holds
                log.warning("settings.json could not be read before a change; changing the settings in use: %s", exc)
                current = self._settings
            new = edit(current)
            if new != self._settings or new != current:
                self._adopt_settings(new, save=True)
            return new

    def reload_settings(self) -> bool:
        """Adopt settings.json as another process on this data dir saved it (applied like
        update_settings, nothing written); False when nothing changed. Raises SettingsError when
        the file cannot be read as settings (the current ones then stay)."""
        with self._edit_lock:
            new, _ = load_settings(self.paths.settings_file)
            if new == self._settings:
                return False
            self._adopt_settings(new, save=False)
            return True

    def _adopt_settings(self, new: Settings, save: bool) -> None:
        with self._lock:
            old = self._settings
            if save:
                save_settings(self.paths.settings_file, new)
            self._settings = new
            self.store.max_profiles_per_user = new.max_profiles_per_user
            self.store.max_event_keep = new.max_event_keep
        if new.disabled_skills != old.disabled_skills:
            self.skills.set_disabled(new.disabled_skills)
        self.context.invalidate()
        for listener in list(self._listeners):
            listener(old, new)

    # ---- API token -----------------------------------------------------------------------

    @property
    def api_token(self) -> str:
        return self._settings.api_token or load_or_create_token(self.paths.token_file)

    def regenerate_token(self) -> str:
        token = generate_token()
        save_token(self.paths.token_file, token)
        if self._settings.api_token:  # the token file's counts now; only that field changes
            self.edit_settings(lambda s: s.replace(api_token=""))
        return token

    # ---- lifecycle -----------------------------------------------------------------------

    def _on_watch_tick(self) -> None:
        """Every WATCH_TICK_S: checkpoint when our writes made it due; every second: look for other
        processes' commits (companion mode) and checkpoint whatever they or we wrote."""
        self._ticks += 1
        poll = self._ticks % TICKS_PER_POLL == 0
        if poll:
            self._disk.check()  # files only: a database outage does not hold it back
        self.store.maintain(poll=poll, build=self._build_recall)

    def start_watching(self, build_recall: bool = True) -> None:
        """Watch for other processes' writes; with `build_recall`, also index an existing database's
        events (recall) and users (search) in the background (the window runs those builds as a task
        with progress instead)."""
        self._build_recall = build_recall
        self._watcher.start()
        if self.change_listener is not None:
            self.change_listener.start()

    def close(self) -> None:
        self._watcher.stop()
        if self.change_listener is not None:
            self.change_listener.stop()
        self.store.close()


def _tree_folder(paths: DataPaths) -> Path | None:
    """The plugin data folder when a companion's data is a KiraOS 3.x tree (memory/ beside our database path)."""
    if not paths.companion or paths.db_path.parent.name != "memory":
        return None
    folder = paths.db_path.parent.parent
    return folder if tree_layout(folder) is not None else None


def _open_store(paths: DataPaths, settings: Settings, database_url: DatabaseUrl | None):
    limits = {"max_profiles_per_user": settings.max_profiles_per_user, "max_event_keep": settings.max_event_keep}
    if database_url is None:
        return SqliteStore(paths.db_path, **limits)
    # Only here: SQLite mode never loads the PostgreSQL store (nor needs psycopg).
    from kiraos_desktop.core.storage.postgres.store import PgMemoryStore

    try:
        return PgMemoryStore(database_url.connect_url(), location=database_url.redacted(), **limits)
    except StoreError as exc:
        # The store's messages hold no password; this makes sure, and says which database it was.
        exc.args = (database_url.hide_secrets(str(exc)),)
        exc.database_label = database_url.redacted()
        raise
