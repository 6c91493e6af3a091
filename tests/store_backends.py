"""Fixtures that run a core test on both backends: SQLite (a file) and PostgreSQL (a new database).

conftest.py registers them. A test that uses `backend` (or `new_store`, `engine_backend`) runs once
per backend; one that only makes sense on SQLite says so with @SQLITE_ONLY.
"""
from __future__ import annotations

import pytest

from kiraos_desktop.core.storage.postgres.store import PgMemoryStore
from kiraos_desktop.core.storage.sqlite.store import SqliteStore

BACKENDS = ("sqlite", "postgres")
SQLITE_ONLY = pytest.mark.backends("sqlite")


def parametrize(metafunc) -> None:
    """pytest_generate_tests: one run per backend, or those of a `backends(...)` mark."""
    if "backend" in metafunc.fixturenames:
        only = metafunc.definition.get_closest_marker("backends")
        metafunc.parametrize("backend", only.args if only else BACKENDS, indirect=True)


@pytest.fixture
def backend(request) -> str:
    return request.param


@pytest.fixture
def new_store(backend, request, tmp_path):
    """A factory: each call opens another store (another "instance") on this test's database."""
    opened = []
    if backend == "postgres":
        url = request.getfixturevalue("pg_url")

        def make(**limits):
            opened.append(PgMemoryStore(url, **limits))
            return opened[-1]
    else:
        def make(**limits):
            opened.append(SqliteStore(tmp_path / "m.db", **limits))
            return opened[-1]
    yield make
    for store in opened:
        store.close()


@pytest.fixture
def engine_backend(backend, request, monkeypatch) -> str:
    """Engines opened in the test keep their memory in the backend's database."""
    if backend == "postgres":
        url = request.getfixturevalue("pg_url")
        from kiraos_desktop.core import engine as engine_module

        monkeypatch.setattr(engine_module, "SqliteStore", lambda _path, **limits: PgMemoryStore(url, **limits))
    return backend
