"""The PostgreSQL recall drain creates new users' rows and index keys in one order in every process."""
from __future__ import annotations

from contextlib import contextmanager

from kiraos_desktop.core.storage.postgres import recall as pg_recall


class _Result:
    def __init__(self, rows):
        self._rows = rows

    def fetchone(self):
        return self._rows[0] if self._rows else None

    def fetchall(self):
        return self._rows

    def __iter__(self):
        return iter(self._rows)


class _RecordingConnection:
    """Enough of a psycopg connection for drain(): hands out queue rows, says every user is to be indexed
    (with no events yet), numbers users, records order."""

    def __init__(self, queue_rows):
        self.queue_rows = queue_rows
        self.new_users: list[str] = []
        self.inserted_keys: list[tuple] = []
        self.deleted_seqs: list[int] = []

    def execute(self, sql, params=()):
        if sql.startswith("SELECT seq"):
            return _Result(self.queue_rows)
        if sql.startswith("SELECT user_id FROM user_summary"):  # every user asked about is past INDEX_PAST
            return _Result([(user_id,) for user_id in params[:-1]])
        if sql.startswith("INSERT INTO recall_users"):
            self.new_users.append(params[0])
            return _Result([(len(self.new_users),)])
        if sql.startswith("DELETE FROM recall_queue"):
            self.deleted_seqs.extend(params[0])
        return _Result([])

    def cursor(self):
        owner = self

        class _Cursor:
            def __enter__(self):
                return self

            def __exit__(self, *exc):
                return False

            def executemany(self, sql, rows):
                if sql.startswith("INSERT INTO recall_terms"):
                    owner.inserted_keys.extend(rows)

        return _Cursor()

    @contextmanager
    def pipeline(self):
        yield


def test_new_users_and_keys_are_created_in_code_point_order_whatever_the_queue_order(index_every_user):
    # Queue order z, a, B: a drain that numbered users in queue order could deadlock with another
    # drain taking the same new users the other way round.
    conn = _RecordingConnection([(1, "z", 10, None, "旅行 cat"), (2, "a", 11, None, "面试 dog"),
                                 (3, "B", 12, None, "exam"), (4, "z", 13, None, "weekend")])
    assert pg_recall.drain(conn) == 4
    assert conn.new_users == ["B", "a", "z"]
    assert conn.inserted_keys == sorted(conn.inserted_keys) and len(conn.inserted_keys) >= 4
    assert conn.deleted_seqs == [1, 2, 3, 4]
