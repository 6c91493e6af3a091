"""The type checker over the store protocol and everything that holds a store (pyproject's [tool.mypy])."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def test_the_store_boundary_type_checks():
    done = subprocess.run([sys.executable, "-m", "mypy", "--no-incremental"], cwd=REPO, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr


def mypy_on(tmp_path, source: str) -> subprocess.CompletedProcess:
    """mypy on one probe module, the package's types read but not reported."""
    probe = tmp_path / "probe.py"
    probe.write_text(source, encoding="utf-8")
    return subprocess.run([sys.executable, "-m", "mypy", "--no-incremental", "--follow-imports=silent",
                           "--ignore-missing-imports", str(probe)], cwd=REPO, capture_output=True, text=True,
                          timeout=600)


def test_a_store_missing_a_protocol_method_is_caught(tmp_path):
    # The check can fail: a store class without get_events is not a MemoryStore.
    done = mypy_on(tmp_path,
                   "from kiraos_desktop.core.storage.protocol import MemoryStore\n"
                   "from kiraos_desktop.core.storage.sqlite.store import SqliteStore\n"
                   "class Partial(SqliteStore):\n"
                   "    get_events = None\n"
                   "def use(store: Partial) -> MemoryStore:\n"
                   "    return store\n")
    assert done.returncode == 1 and "get_events" in done.stdout, done.stdout


def test_a_page_that_holds_a_reader_cannot_write_past_the_undo_stack(tmp_path):
    """Issue 52: pages, routes and commands read through MemoryReader; a write on it is a type error
    (the window writes through its undoable writer, which keeps each change on the undo stack)."""
    done = mypy_on(tmp_path,
                   "from kiraos_desktop.core.storage.protocol import MemoryReader\n"
                   "def page(store: MemoryReader) -> None:\n"
                   "    store.get_events('u')\n"
                   "    store.add_event('u', 'x', actor='gui')\n")
    assert done.returncode == 1 and "add_event" in done.stdout and "get_events" not in done.stdout, done.stdout
