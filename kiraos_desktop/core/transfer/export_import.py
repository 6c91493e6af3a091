"""Backup (SQLite online backup), and export/import in a versioned JSON format (peewee queries on models.py).

Export and import are not hot paths: they read and write through the models, compiled for either
backend, a chunk of users (or rows) per statement, so the file and the result are the same on
SQLite and PostgreSQL.
"""
from __future__ import annotations

import json
import os
import sqlite3
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from kiraos_desktop.core import jsontext
from kiraos_desktop.core.storage.models import EventLog, UserProfile
from kiraos_desktop.core.memory.records import (
    EventEntry,
    ProfileEntry,
    StoreError,
    ValidationError,
    check_category,
    check_confidence,
    check_event_text,
    check_expiry,
    check_key,
    check_tag,
    check_user_id,
    check_value,
)
from kiraos_desktop.core.schema_messages import shown
from kiraos_desktop.core.timeutil import now_iso

if TYPE_CHECKING:
    from kiraos_desktop.core.storage.protocol import MemoryReader
    from kiraos_desktop.core.storage.sqlite.store import SqliteStore

EXPORT_FORMAT = "kiraos-desktop-export"
EXPORT_VERSION = 1
#: Users read per query of an export, rows written per statement of an import.
CHUNK = 500
Progress = Callable[[int, int], None]  # (done, total)
IsCancelled = Callable[[], bool]


class TransferError(StoreError):
    """Bad file or failed transfer; the message names the first problem."""


class NotAnExport(TransferError):
    """The file is no export at all (not UTF-8, not JSON, not an object, another format), as opposed to
    an export with a bad entry: the window says what an export is before the detail."""


class Cancelled(StoreError):
    pass


def backup(store: "SqliteStore", target: Path, progress: Progress | None = None,
           is_cancelled: IsCancelled | None = None) -> Path:
    """Consistent copy of the live database (writers may keep going); atomic at the target path."""
    target = Path(target)
    if target.exists():
        raise TransferError(f"{target} already exists; choose a new file name")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        remove_stale_backup_parts(target.parent)
        fd, tmp = tempfile.mkstemp(prefix=_PART_PREFIX, suffix=_PART_SUFFIX, dir=target.parent)
    except OSError as exc:
        raise _write_error(target, exc) from None
    os.close(fd)
    source = sqlite3.connect(str(store.path), timeout=10)
    dest = sqlite3.connect(tmp)

    def step(status: int, remaining: int, total: int) -> None:
        if progress:
            progress(total - remaining, total)
        if is_cancelled and is_cancelled():
            raise Cancelled("backup cancelled")

    try:
        source.backup(dest, pages=256, progress=step)
        dest.close()
        os.replace(tmp, target)
    except BaseException:
        dest.close()
        Path(tmp).unlink(missing_ok=True)
        Path(tmp + "-journal").unlink(missing_ok=True)
        raise
    finally:
        source.close()
    return target


#: A backup's copy in progress: `.backup.<random>.tmp` (and SQLite's `-journal` beside it).
_PART_PREFIX, _PART_SUFFIX = ".backup.", ".tmp"
#: Older than this, such a file is what a killed backup left (a running one writes to it all the time).
STALE_PART_SECONDS = 600


def remove_stale_backup_parts(folder: Path) -> list[Path]:
    """Delete what killed backups left in `folder` (an 81 MB copy stayed for ever); the removed files."""
    cutoff = time.time() - STALE_PART_SECONDS
    removed = []
    for pattern in (f"{_PART_PREFIX}*{_PART_SUFFIX}", f"{_PART_PREFIX}*{_PART_SUFFIX}-journal"):
        for path in folder.glob(pattern):
            try:
                if path.is_file() and not path.is_symlink() and path.stat().st_mtime < cutoff:
                    path.unlink()
                    removed.append(path)
            except OSError:
                pass
    return removed


_PROFILE_FIELDS = (UserProfile.user_id, UserProfile.memory_key, UserProfile.memory_value, UserProfile.updated_at,
                   UserProfile.confidence, UserProfile.category, UserProfile.expires_at)  # store_rows.PROFILE_COLUMNS


def export_data(store: "MemoryReader", user_ids: list[str] | None = None, progress: Progress | None = None) -> dict:
    # A user named twice is exported once: an import refuses a file that holds a user twice.
    ids = list(dict.fromkeys(check_user_id(uid) for uid in user_ids)) if user_ids is not None else store.all_user_ids()
    users = []
    for start in range(0, len(ids), CHUNK):
        chunk = ids[start:start + CHUNK]
        profiles, events = store.memory_of_users(chunk)
        for uid in chunk:
            users.append({"user_id": uid, "events": [_exported_event(e) for e in events[uid]], "profiles": [
                {"key": p.key, "value": p.value, "updated_at": p.updated_at, "confidence": p.confidence,
                 "category": p.category, "expires_at": p.expires_at} for p in profiles[uid]]})
            if progress:
                progress(len(users), len(ids))
    return {"format": EXPORT_FORMAT, "version": EXPORT_VERSION, "exported_at": now_iso(), "users": users}


def _exported_event(event: EventEntry) -> dict:
    exported = {"event_summary": event.summary, "created_at": event.created_at}
    if event.tag is not None:  # KiraOS 2.x's tag, where the data has one
        exported["tag"] = event.tag
    return exported


def export_file(store: "MemoryReader", target: Path, user_ids: list[str] | None = None,
                progress: Progress | None = None) -> int:
    from kiraos_desktop.core.settings import atomic_write_text

    target = Path(target)
    if target.is_dir():
        raise TransferError(f"{target} is a folder; give the name of the file to write, such as "
                            f"{target / 'memory.json'}")
    data = export_data(store, user_ids, progress)
    try:
        atomic_write_text(target, json.dumps(data, ensure_ascii=False, indent=1) + "\n")
    except OSError as exc:
        raise _write_error(target, exc) from None
    return len(data["users"])


def _write_error(target: Path, exc: OSError) -> TransferError:
    """A file that cannot be written at `target`, said without the temp file's name."""
    return TransferError(f"cannot write {target}: {exc.strerror or exc}; choose another file name or folder")


@dataclass(frozen=True)
class ImportPlan:
    profiles: list[ProfileEntry]
    events: list[EventEntry]  # id 0: assigned on insert
    user_ids: list[str]

    @property
    def tagged_events(self) -> int:
        """Events with a tag (KiraOS 2.x): data without event tags stores them without it."""
        return sum(1 for e in self.events if e.tag is not None)


def _require(condition: bool, where: str, message: str) -> None:
    if not condition:
        raise TransferError(f"{where}: {message}")


def _field(where: str, check: Callable[[Any], Any], value: Any) -> Any:
    try:
        return check(value)
    except ValidationError as exc:
        raise TransferError(f"{where}: {exc.message}") from None


def validate_import(data: Any) -> ImportPlan:
    """Check the whole document before anything is written; the first problem is raised."""
    if not isinstance(data, dict):
        raise NotAnExport("file: must be a JSON object")
    if data.get("format") != EXPORT_FORMAT:
        raise NotAnExport(f"format: must be {EXPORT_FORMAT!r}")
    version = data.get("version")
    _require(version == EXPORT_VERSION and not isinstance(version, bool), "version",
             f"this version of KiraOS Desktop reads version {EXPORT_VERSION}, got {shown(version)}")
    unknown = sorted(set(data) - {"format", "version", "exported_at", "users"})
    _require(not unknown, "file", f"unknown field {unknown[0] if unknown else ''!r}")
    users = data.get("users")
    _require(isinstance(users, list), "users", "must be a list")
    profiles: list[ProfileEntry] = []
    events: list[EventEntry] = []
    seen_users: set[str] = set()
    for i, user in enumerate(users):
        at = f"users[{i}]"
        _require(isinstance(user, dict), at, "must be an object")
        _require(not set(user) - {"user_id", "profiles", "events"}, at, "has unknown fields")
        uid = _field(f"{at}.user_id", check_user_id, user.get("user_id"))
        _require(uid not in seen_users, f"{at}.user_id", f"{uid!r} appears twice")
        seen_users.add(uid)
        _require(isinstance(user.get("profiles", []), list), f"{at}.profiles", "must be a list")
        _require(isinstance(user.get("events", []), list), f"{at}.events", "must be a list")
        keys: set[str] = set()
        for j, p in enumerate(user.get("profiles", [])):
            pat = f"{at}.profiles[{j}]"
            _require(isinstance(p, dict), pat, "must be an object")
            _require(not set(p) - {"key", "value", "updated_at", "confidence", "category", "expires_at"},
                     pat, "has unknown fields")
            key = _field(f"{pat}.key", check_key, p.get("key"))
            _require(key not in keys, f"{pat}.key", f"{key!r} appears twice")
            keys.add(key)
            profiles.append(ProfileEntry(
                uid, key, _field(f"{pat}.value", check_value, p.get("value")),
                _field(f"{pat}.updated_at", check_expiry, p.get("updated_at")) or now_iso(),
                _field(f"{pat}.confidence", check_confidence, p.get("confidence", 0.5)),
                _field(f"{pat}.category", check_category, p.get("category", "basic")),
                _field(f"{pat}.expires_at", check_expiry, p.get("expires_at"))))
        for j, e in enumerate(user.get("events", [])):
            eat = f"{at}.events[{j}]"
            _require(isinstance(e, dict), eat, "must be an object")
            _require(not set(e) - {"event_summary", "created_at", "tag"}, eat, "has unknown fields")
            events.append(EventEntry(
                0, uid, _field(f"{eat}.event_summary", check_event_text, e.get("event_summary")),
                _field(f"{eat}.created_at", check_expiry, e.get("created_at")) or now_iso(),
                _field(f"{eat}.tag", check_tag, e.get("tag"))))
    return ImportPlan(profiles, events, sorted(seen_users))


def read_import_file(path: Path) -> ImportPlan:
    try:
        text = Path(path).read_text(encoding="utf-8-sig")  # a byte order mark (Windows editors) is no error
    except FileNotFoundError:
        raise TransferError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise TransferError(f"{path}: is a folder; give the export file (.json) to import") from None
    except UnicodeDecodeError:
        raise NotAnExport(f"{path}: not UTF-8 text") from None
    except OSError as exc:
        raise TransferError(f"{path}: cannot be read: {exc.strerror or exc}") from None
    try:
        data = jsontext.loads(text)
    except json.JSONDecodeError as exc:
        raise NotAnExport(f"{path}: not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})") from None
    except jsontext.LoneSurrogateError as exc:
        raise TransferError(f"{path}: {exc}") from None
    return validate_import(data)


def _existing_events(batch, user_ids: list[str]) -> set[tuple]:
    """(user_id, event_summary, created_at) of the stored events of these users."""
    found: set[tuple] = set()
    for start in range(0, len(user_ids), CHUNK):
        found.update(tuple(row) for row in batch.run(
            EventLog.select(EventLog.user_id, EventLog.event_summary, EventLog.created_at)
            .where(EventLog.user_id.in_(user_ids[start:start + CHUNK]))).fetchall())
    return found


def apply_import(store: "SqliteStore", plan: ImportPlan, actor: str = "import", progress: Progress | None = None,
                 is_cancelled: IsCancelled | None = None) -> tuple[int, int]:
    """Merge the plan in one transaction: profiles replace same keys; identical events (same user, text
    and time, stored or earlier in the file) are not duplicated."""
    total = len(plan.profiles) + len(plan.events)

    def merge(batch) -> tuple[int, int]:
        """The whole merge in `batch` (run again from the start when the store retries it)."""
        done = 0
        counts: dict[str, list[int]] = {uid: [0, 0] for uid in plan.user_ids}
        batch.bulk_action = "import"
        for start in range(0, len(plan.profiles), CHUNK):
            chunk = plan.profiles[start:start + CHUNK]
            batch.run(UserProfile.insert_many(
                [(e.user_id, e.key, e.value, e.updated_at, e.confidence, e.category, batch.stored_expiry(e.expires_at))
                 for e in chunk],
                fields=_PROFILE_FIELDS).on_conflict(
                conflict_target=[UserProfile.user_id, UserProfile.memory_key], preserve=_PROFILE_FIELDS[2:]))
            for entry in chunk:
                counts[entry.user_id][0] += 1
            done += len(chunk)
            _tick(progress, is_cancelled, done, total)
        seen = _existing_events(batch, plan.user_ids)
        new_events, tagged = [], []
        for event in plan.events:
            key = (event.user_id, event.summary, event.created_at)
            if key not in seen:
                seen.add(key)
                if event.tag is not None and store.event_tags:
                    tagged.append(key + (event.tag,))
                else:
                    new_events.append(key)
                counts[event.user_id][1] += 1
        for start in range(0, len(new_events), CHUNK):
            batch.run(EventLog.insert_many(new_events[start:start + CHUNK],
                                           fields=(EventLog.user_id, EventLog.event_summary, EventLog.created_at)))
            done += CHUNK
            _tick(progress, is_cancelled, min(done, total), total)
        for start in range(0, len(tagged), CHUNK):  # the plugin's tag column is no column of our models
            for row in tagged[start:start + CHUNK]:
                batch.execute("INSERT INTO event_logs (user_id, event_summary, created_at, tag) VALUES (?, ?, ?, ?)", row)
            done += CHUNK
            _tick(progress, is_cancelled, min(done, total), total)
        for uid, (p, e) in counts.items():
            batch.audit(uid, "import", None, None, {"profiles": p, "events": e})
        return len(plan.profiles), len(new_events) + len(tagged)

    merged = store.run_batch(actor, merge, users=plan.user_ids)[0]
    if progress:
        progress(total, total)
    return merged


def _tick(progress: Progress | None, is_cancelled: IsCancelled | None, done: int, total: int) -> None:
    if progress:
        progress(done, total)
    if is_cancelled and is_cancelled():
        raise Cancelled("import cancelled; nothing was changed")
