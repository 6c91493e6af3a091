"""A killed process leaves a database that opens with every acknowledged write."""
import signal
import subprocess
import sys
import textwrap
import time

from kiraos_desktop.core.storage.sqlite.store import SqliteStore

_WRITER = textwrap.dedent("""
    import sys
    from kiraos_desktop.core.storage.sqlite.store import SqliteStore
    store = SqliteStore(sys.argv[1], max_event_keep=0, max_profiles_per_user=0)
    i = 0
    while True:
        with store.batch("api") as batch:
            batch.set_profile("u", f"k{i}", "v")
            batch.add_event("u", f"e{i}")
        print(i, flush=True)  # acknowledged only after the commit returned
        i += 1
""")


def test_kill_minus_nine_keeps_every_acknowledged_write(tmp_path):
    db = tmp_path / "m.db"
    SqliteStore(db).close()
    proc = subprocess.Popen([sys.executable, "-c", _WRITER, str(db)], stdout=subprocess.PIPE, text=True)
    acked = []
    deadline = time.time() + 30
    while len(acked) < 200 and time.time() < deadline and proc.poll() is None:
        line = proc.stdout.readline()
        if line:
            acked.append(int(line))
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=10)
    assert len(acked) >= 200
    store = SqliteStore(db)
    keys = {p.key for p in store.get_profiles("u")}
    events = {e.summary for e in store.get_events("u")}
    assert {f"k{i}" for i in acked} <= keys
    assert {f"e{i}" for i in acked} <= events
    assert store.user_summary("u").profile_count == len(keys)
    store.close()
