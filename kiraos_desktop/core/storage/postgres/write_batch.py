"""A write batch on PostgreSQL: WriteBatch's SQL in PostgreSQL's words, and a lock per user it touches."""
from __future__ import annotations

from typing import Any, Iterable

from kiraos_desktop.core.storage.dialect import pg_sql
from kiraos_desktop.core.storage.rows import EXPIRED_CONDITION
from kiraos_desktop.core.storage.protocol import KEEP_TAG
from kiraos_desktop.core.storage.sql_write_batch import WriteBatch

_LOCK_USER = "SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))"
# The writers' key: two int4 keys ("KD", 1), a lock tag no user's bigint key can have. Every write
# transaction holds it shared before it takes a user's lock; a bulk batch holds it alone. A batch's
# first user lock takes it in the same statement (PostgreSQL evaluates the list left to right; the
# statement is the one a batch sent anyway, so the key costs no message nor round trip).
_SHARE = "pg_advisory_xact_lock_shared(19268, 1)"
_SHARE_WRITERS = f"SELECT {_SHARE}"
_SHARE_AND_LOCK_USER = f"SELECT {_SHARE}, pg_advisory_xact_lock(hashtextextended(%s, 0))"
_SHARE_AND_TRY_LOCK_USER = f"SELECT {_SHARE}, pg_try_advisory_xact_lock(hashtextextended(%s, 0))"
_EXCLUDE_WRITERS = "SELECT pg_advisory_xact_lock(19268, 1)"
#: A batch declaring more users than this takes the writers' key exclusively instead of their locks.
#: A lock per user takes a slot of the server's lock table (max_locks_per_transaction x
#: max_connections, about 6 400 on a default server, shared by every session): an import of more
#: users failed with "out of shared memory". Below it, other users' writers go on meanwhile.
BULK_USERS = 1000


class UndeclaredUser(RuntimeError):
    """A batch opened with users=[...] was about to write a user not in that list (a programming
    error: the caller must declare every user). Waiting for that user's lock while holding the
    others could deadlock with another instance, so the batch fails and is rolled back instead."""


class PgWriteBatch(WriteBatch):
    """Before it reads or writes a user's rows, the batch takes the user's advisory transaction lock:
    another instance's batch on that user waits until this transaction ends, so what was read
    (the live count against the profile limit, the event count against retention, the head of
    the audit chain) is still true when written. Batches on different users never wait on each other.

    One user's batch takes its lock when it first needs it. A batch that writes several users
    (a revert, an import) names them when it opens (declare_users()): it takes all their locks at
    once, in ascending order of user id, before its first read. Every instance takes them in that
    order, so two such batches cannot deadlock; taken one by one as the work went, two instances
    could each hold a user the other waits for. Such a batch cannot simply run again on a deadlock:
    its body is the caller's code.

    Before its first user's lock a batch takes the writers' key in shared mode (it never waits for
    another writer there). A batch declaring more than BULK_USERS users takes that key in exclusive
    mode instead, and no user's lock: it waits until every other write transaction has ended, and
    every write transaction that starts meanwhile waits for it, holding nothing. The key always
    comes first, so this adds no deadlock.
    """

    def __init__(self, store, actor: str) -> None:
        super().__init__(store, actor)
        conn = store.writer.connection()
        self._raw = conn

        def execute(sql: str, params: tuple = ()):
            return conn.execute(pg_sql(sql), params)

        self._sql = execute
        self._locked: set[str] = set()
        self._declared: frozenset[str] | None = None  # declare_users(): the only users it may lock
        self._wrote_unlocked = False  # raw SQL (execute()) ran before any lock

    def declare_users(self, users: Iterable[str]) -> None:
        """Take the locks of every user the batch will write, in ascending order, before anything else.

        Only for a batch that is its own transaction: inside a group or another batch, the
        transaction may hold other users' locks already (taken in another order)."""
        if self._declared is not None or self._locked or self._wrote_unlocked:
            raise RuntimeError("a batch declares its users once, before its first statement")
        if self._store.depth != 1:
            raise RuntimeError("a batch that declares its users must be its own transaction, not inside "
                               "a group() or another batch")
        ordered = sorted(set(users))
        self._lock_in_order(ordered)
        self._declared = frozenset(ordered)

    def _lock_in_order(self, ordered: list[str]) -> None:
        """Lock these users (sorted), holding no lock yet in this transaction: more than BULK_USERS
        through the writers' key alone, else it shared and each user's lock in this order."""
        if len(ordered) > BULK_USERS:
            self._raw.execute(_EXCLUDE_WRITERS)
        elif ordered:  # pipelined: no round trip of their own
            self._raw.execute(_SHARE_WRITERS)
            self._raw.cursor().executemany(_LOCK_USER, [(user_id,) for user_id in ordered])
        self._locked.update(ordered)

    def execute(self, sql: str, params: tuple = ()):
        self._wrote_unlocked = self._wrote_unlocked or not self._locked
        return super().execute(sql, params)

    def _run_compiled(self, sql: str, params: list):
        self._wrote_unlocked = self._wrote_unlocked or not self._locked
        return self._raw.execute(sql, params)  # PostgreSQL's words already

    def lock_user(self, user_id: str) -> None:
        """Wait for the user's lock. In a group, the batch's first lock is tried first: when another
        instance holds it, the group commits what it did so far and then waits holding nothing."""
        if user_id in self._locked:
            return
        if self._declared is not None:
            shown = ", ".join(repr(u) for u in sorted(self._declared)[:5])
            more = ", ..." if len(self._declared) > 5 else ""
            raise UndeclaredUser(f"this batch declared the users [{shown}{more}] but writes {user_id!r}: "
                                 "pass every user it writes to store.batch(actor, users=...)")
        store = self._store
        # The batch's first lock takes the writers' key too (again, in a group's transaction: that
        # never waits); its later locks are in a transaction that holds the key.
        if self._locked:
            self._raw.execute(_LOCK_USER, (user_id,))
        elif store.in_group and not self._wrote_unlocked and store.depth == 2:
            if not self._raw.execute(_SHARE_AND_TRY_LOCK_USER, (user_id,)).fetchone()[1]:
                store.split_group()  # its commit released the key
                self._raw.execute(_SHARE_AND_LOCK_USER, (user_id,))
        else:
            self._raw.execute(_SHARE_AND_LOCK_USER, (user_id,))
        self._locked.add(user_id)

    def _insert_event(self, user_id: str, summary: str, when: str) -> int:
        self.lock_user(user_id)
        return self._sql("INSERT INTO event_logs (user_id, event_summary, created_at) VALUES (?, ?, ?) RETURNING id",
                         (user_id, summary, when)).fetchone()[0]

    def audit(self, user_id: str, action: str, target: str | None, before: Any, after: Any) -> None:
        self.lock_user(user_id)
        super().audit(user_id, action, target, before, after)

    def profile(self, user_id: str, key: str):
        self.lock_user(user_id)
        return super().profile(user_id, key)

    def live_profile_count(self, user_id: str) -> int:
        self.lock_user(user_id)
        return super().live_profile_count(user_id)

    def profile_rows(self, user_id: str):
        self.lock_user(user_id)
        return super().profile_rows(user_id)

    def put_profile(self, entry) -> None:
        self.lock_user(entry.user_id)
        super().put_profile(entry)

    def is_recent_event(self, user_id: str, summary: str, window) -> bool:
        self.lock_user(user_id)
        return super().is_recent_event(user_id, summary, window)

    def restore_event(self, data: dict) -> None:
        self.lock_user(data["user_id"])
        super().restore_event(data)

    def trim_events(self, user_id: str) -> int:
        self.lock_user(user_id)
        return super().trim_events(user_id)

    def update_event(self, user_id: str, event_id: int, summary: Any, tag: Any = KEEP_TAG) -> bool:
        self.lock_user(user_id)
        return super().update_event(user_id, event_id, summary, tag)

    def delete_event(self, user_id: str, event_id: int) -> bool:
        self.lock_user(user_id)
        return super().delete_event(user_id, event_id)

    def clear_user(self, user_id: str) -> tuple[int, int]:
        self.lock_user(user_id)
        return super().clear_user(user_id)

    def purge_expired(self, user_id: str | None = None) -> int:
        if user_id is not None:
            self.lock_user(user_id)
            return super().purge_expired(user_id)
        # Every user with expired entries, locked in declare_users()'s order (Python's, not the
        # database collation's), then purged user by user: an entry of a user not locked here
        # (one written since the query) is left for the next purge.
        users = sorted(uid for (uid,) in self._sql(
            f"SELECT DISTINCT user_id FROM user_profiles WHERE {EXPIRED_CONDITION}", (self.now,)).fetchall())
        if self._declared is None and not self._locked and not self._wrote_unlocked and self._store.depth == 1:
            self._lock_in_order(users)  # its own transaction: as a declared batch (many users: bulk)
        for uid in users:
            self.lock_user(uid)
        return sum(super(PgWriteBatch, self).purge_expired(uid) for uid in users)
