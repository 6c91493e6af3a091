"""The gaps our writer leaves for another process (write_gaps.py): asked of the WAL index's locks,
kept only while another process has the database open, never by dropping SQLite's own locks."""
import os
import sqlite3
import subprocess
import sys
import textwrap

import pytest

from kiraos_desktop.core.storage.sqlite import write_gaps
from kiraos_desktop.core.storage.sqlite.write_gaps import MAX_GAP_S, WalPeers, WriteGaps

pytestmark = pytest.mark.skipif(write_gaps.fcntl is None or write_gaps._FLOCK is None,
                                reason="the WAL index's locks cannot be asked here: gaps are always kept")

_HOLDER = textwrap.dedent("""
    import sqlite3, sys
    conn = sqlite3.connect(sys.argv[1])
    conn.execute("SELECT count(*) FROM t").fetchone()
    print("open", flush=True)
    sys.stdin.readline()
""")


def _wal_db(path):
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("CREATE TABLE IF NOT EXISTS t (x)")
    conn.commit()
    return conn


def test_another_process_is_seen_and_our_own_connection_is_not(tmp_path):
    db = tmp_path / "m.db"
    ours = _wal_db(db)
    peers = WalPeers(db)
    try:
        assert peers.present() is False
        holder = subprocess.Popen([sys.executable, "-c", _HOLDER, str(db)], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, text=True)
        try:
            assert holder.stdout.readline().strip() == "open"
            assert peers.present() is True
        finally:
            holder.communicate("\n", timeout=30)
        assert peers.present() is False
    finally:
        peers.close()
        ours.close()


def test_asking_keeps_sqlites_locks(tmp_path):
    """Closing a descriptor of the -shm file drops every POSIX lock of the process on it, SQLite's
    too: asked many times, our connection's shared lock on the WAL index must still be seen by a peer."""
    db = tmp_path / "m.db"
    ours = _wal_db(db)
    peers = WalPeers(db)
    for _ in range(5):
        peers.present()
    fd = os.open(f"{db}-shm", os.O_RDONLY)
    try:
        probe = subprocess.run([sys.executable, "-c", textwrap.dedent(f"""
            import os
            from kiraos_desktop.core.storage.sqlite.write_gaps import other_process_has_open
            fd = os.open({str(db) + '-shm'!r}, os.O_RDONLY)
            print(other_process_has_open(fd))
        """)], capture_output=True, text=True, timeout=60)
        assert probe.stdout.strip() == "True", probe.stderr
    finally:
        os.close(fd)
        peers.close()
        ours.close()


class _Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


def test_a_gap_follows_a_transaction_only_while_a_peer_is_there(tmp_path, monkeypatch):
    clock = _Clock()
    gaps = WriteGaps(tmp_path / "m.db", clock=clock)
    present = [True]
    monkeypatch.setattr(gaps._peers_open, "present", lambda: present[0])
    began = clock.now
    clock.now += 0.03
    gaps.ended(began)
    assert gaps.wait_needed() == pytest.approx(0.03)
    clock.now += 0.03
    assert gaps.wait_needed() == 0.0
    began = clock.now
    clock.now += 5.0  # a long transaction: the gap is capped
    gaps.ended(began)
    assert gaps.wait_needed() == pytest.approx(MAX_GAP_S)
    present[0] = False
    clock.now += write_gaps.PEER_CHECK_S  # asked again: the peer has gone, no gap
    gaps.ended(clock.now - 0.05)
    assert gaps.wait_needed() == 0.0
