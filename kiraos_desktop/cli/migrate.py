"""`kiraos-desktop migrate --to URL`: the SQLite memory of a data dir into an empty PostgreSQL database."""
from __future__ import annotations

import sys
import time

from kiraos_desktop.core.exit_codes import EXIT_OK, EXIT_USAGE

PROGRESS_EVERY_S = 1.0


def _say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


class _Progress:
    """Rows copied as stderr lines, at most one a second (and the last one)."""

    def __init__(self) -> None:
        self._last = 0.0
        self._shown = -1

    def __call__(self, done: int, total: int) -> None:
        now = time.monotonic()
        if done != self._shown and (done >= total or now - self._last >= PROGRESS_EVERY_S):
            self._last, self._shown = now, done
            percent = 100 * done // total if total else 100
            _say(f"  {done}/{total} rows ({percent}%)")


def _names_another_database(given, target) -> bool:
    """Whether two DatabaseUrls name different databases (the password and connection options aside)."""
    return (given.host, given.port, given.database, given.user) != (target.host, target.port, target.database,
                                                                     target.user)


def run_migrate(args) -> int:
    from kiraos_desktop.core.storage.database_url import DatabaseUrlError, parse_database_url
    from kiraos_desktop.core.paths import resolve_paths
    from kiraos_desktop.core.memory.records import StoreError
    from kiraos_desktop.core.settings import SettingsError, load_settings

    def fail(message: str) -> int:
        print(f"kiraos-desktop: error: {message}", file=sys.stderr)
        return EXIT_USAGE

    try:
        target = parse_database_url(args.to, "--to")
        also = getattr(args, "database_url", None)
        if also and _names_another_database(parse_database_url(also, "--database-url"), target):
            return fail("migrate copies the SQLite database of the data dir into --to; --database-url names "
                        "another database: leave --database-url out (or give the --to URL)")
        base = resolve_paths(data_dir=getattr(args, "data_dir", None), kira_data=getattr(args, "kira_data", None))
        settings, _ = load_settings(base.settings_file)
        paths = resolve_paths(data_dir=getattr(args, "data_dir", None), kira_data=getattr(args, "kira_data", None),
                              db=getattr(args, "db", None), configured_skills_dir=settings.skills_dir)
    except (DatabaseUrlError, SettingsError, ValueError) as exc:
        return fail(str(exc))
    if not paths.db_path.is_file():
        return fail(f"there is no database at {paths.db_path} to copy")
    from kiraos_desktop.core.transfer.migrate import bring_source_up_to_date, migrate

    try:
        bring_source_up_to_date(paths.db_path)
        report = migrate(paths.db_path, target, progress=_Progress(), say=_say)
    except (StoreError, OSError) as exc:
        return fail(target.hide_secrets(str(exc)))
    print(f"copied {report.rows} rows into {report.target}; verified:")
    for line in report.lines():
        print(f"  {line}")
    print(f"to use it: --database-url, KIRAOS_DATABASE_URL or the setting database_url = {report.target} "
          "(with the password)")
    return EXIT_OK
