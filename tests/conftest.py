"""Shared test setup: offscreen Qt before any Qt import, and data dirs under tmp_path only."""
import gc
import os
import sys

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402

from store_backends import backend, engine_backend, new_store, parametrize  # noqa: E402,F401 (fixtures)


def pytest_configure(config):
    config.addinivalue_line("markers", "backends(*names): run the test on these store backends only")


def pytest_generate_tests(metafunc):
    parametrize(metafunc)


#: Test modules whose tests leave Qt objects or servers' event loops behind.
_COLLECTED_AFTER = ("test_ui_", "test_api_", "test_mcp_", "test_cli_")


def pytest_collection_finish(session):
    """Every object alive once the tests are collected (the modules, Qt's and the SDKs' type objects,
    the collected items) moved out of the collector's reach: the full collection after each Qt/API
    test below then scans what the tests made, not the ~230k objects of the imports (0.40 s to about
    0.05 s a test). Those objects live until the session ends anyway."""
    gc.collect()
    gc.freeze()


@pytest.hookimpl(trylast=True)
def pytest_runtest_teardown(item, nextitem):
    """After a test that made Qt objects or ran a server (its fixtures torn down): the widgets it closed
    deleted now, and its reference cycles collected now, while what they point to still exists.

    The suite once died of a segmentation fault in a full collection that ran, much later, inside an
    unrelated test and freed the cycles of many earlier ones at once (the wrappers of widgets whose
    pending deletes no event loop had run). Collected here, each test's leftovers go while its own
    state is still whole, and a crash would name the test that left them.
    """
    if not (item.module.__name__.startswith(_COLLECTED_AFTER) or "qtbot" in item.fixturenames):
        return
    qt_core = sys.modules.get("PySide6.QtCore")
    if qt_core is not None and qt_core.QCoreApplication.instance() is not None:
        qt_core.QCoreApplication.sendPostedEvents(None, qt_core.QEvent.Type.DeferredDelete)
    gc.collect()


@pytest.fixture(autouse=True)
def _default_data_dir(tmp_path, monkeypatch):
    # Anything that falls back to the default data dir (companion mode, a bare Engine.open())
    # lands in this test's folder, never in the real user data dir.
    monkeypatch.setenv("KIRAOS_DATA_DIR", str(tmp_path / "default-data"))
    # A developer's own KIRAOS_DATABASE_URL must not put every test's memory on that server.
    monkeypatch.delenv("KIRAOS_DATABASE_URL", raising=False)


@pytest.fixture
def index_every_user(monkeypatch):
    """Every user's events in the recall index, for tests of the index itself: normally only users
    past recall_index.INDEX_PAST events (200) have theirs there."""
    from kiraos_desktop.core.storage import recall_index

    monkeypatch.setattr(recall_index, "INDEX_PAST", 0)


@pytest.fixture
def data_dir(tmp_path):
    path = tmp_path / "data"
    path.mkdir()
    return path


@pytest.fixture
def engine(data_dir):
    """An engine on a fresh data dir (the bundled example skills installed). A test module that
    needs data in it overrides this fixture with one that takes `engine` and fills it."""
    from kiraos_desktop.core.engine import Engine

    opened = Engine.open(data_dir=data_dir)
    yield opened
    opened.close()


# ---- PostgreSQL (tests/pg_server.py): one server per test session, one empty database per test ----

@pytest.fixture(scope="session")
def pg_server():
    """The session's PostgreSQL server. Skipped with the reason when none can be had, unless
    KIRAOS_REQUIRE_POSTGRES=1 (CI), where that is a failure: CI never skips these tests."""
    from pg_server import PostgresUnavailable, start_server

    try:
        server = start_server()
    except PostgresUnavailable as exc:
        if os.environ.get("KIRAOS_REQUIRE_POSTGRES") == "1":
            pytest.fail(f"PostgreSQL is required here (KIRAOS_REQUIRE_POSTGRES=1): {exc}")
        pytest.skip(f"no PostgreSQL for these tests: {exc}")
    yield server
    server.shutdown()


@pytest.fixture
def pg_url(pg_server):
    """The URL (password included) of a new, empty database, dropped after the test."""
    url = pg_server.new_database()
    yield url
    pg_server.drop_database(url)
