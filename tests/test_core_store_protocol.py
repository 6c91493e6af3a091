"""What differs between storage shapes is stated by the store (storage/protocol.py), never sniffed."""
from __future__ import annotations

import pytest

from kiraos_desktop.core.storage.protocol import KEEP_TAG, MemoryStore, WriterBusy
from kiraos_desktop.core.storage import sql_write_batch as write_batch

pytestmark = pytest.mark.backends("sqlite", "postgres")


def test_the_store_says_where_its_memory_lives_and_whether_it_is_a_local_file(backend, new_store, tmp_path, request):
    store: MemoryStore = new_store()
    if backend == "sqlite":
        assert store.local_file == tmp_path / "m.db"
        assert store.location == str(tmp_path / "m.db")
    else:
        assert store.local_file is None
        from kiraos_desktop.core.storage.database_url import parse_database_url

        url = parse_database_url(request.getfixturevalue("pg_url"))
        assert store.location == url.redacted()  # the server and database, never the password
        assert not url.password or url.password not in store.location


def test_the_protocols_names_are_the_ones_the_stores_use(backend, new_store):
    store = new_store()
    store.add_event("u", "学吉他", actor="test")
    event = store.get_events("u")[0]
    assert store.update_event("u", event.id, "学尤克里里", actor="test", tag=KEEP_TAG)
    assert write_batch.KEEP_TAG is KEEP_TAG  # one sentinel, defined by the protocol
    assert issubclass(WriterBusy, RuntimeError)
