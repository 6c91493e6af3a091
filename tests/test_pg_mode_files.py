"""PostgreSQL mode and the data dir: no SQLite file is made for nothing, and `migrate` says which
database is the source when --database-url is given too."""
from __future__ import annotations

import pytest

from kiraos_desktop.cli import build_parser, main
from kiraos_desktop.core.engine import Engine
from migrate_helpers import pg_table_names, seed_memory


def test_an_engine_on_postgresql_creates_no_sqlite_database_in_the_data_dir(data_dir, pg_url):
    engine = Engine.open(data_dir=data_dir, database_url=pg_url)
    try:
        engine.store.set_profile("u", "k", "v", actor="gui")
        assert engine.paths.skills_dir.is_dir() and engine.paths.logs_dir.is_dir()
    finally:
        engine.close()
    assert not (data_dir / "memory").exists()
    engine = Engine.open(data_dir=data_dir)  # on SQLite: the file is made (private) as before
    engine.close()
    assert (data_dir / "memory" / "kiraos.db").is_file()
    assert (data_dir / "memory" / "kiraos.db").stat().st_mode & 0o077 == 0


@pytest.fixture
def seeded(data_dir):
    engine = Engine.open(data_dir=data_dir)
    seed_memory(engine, users=3)
    engine.close()
    return data_dir


def test_migrate_refuses_a_database_url_other_than_its_target(seeded, pg_server, pg_url, capsys):
    other = pg_server.new_database()
    try:
        code = main(["migrate", "--to", pg_url, "--database-url", other, "--data-dir", str(seeded)])
        out, err = capsys.readouterr()
        assert code == 2 and out == ""
        assert len(err.strip().splitlines()) == 1 and "--database-url names another database" in err
        assert "test-secret" not in err
        assert pg_table_names(pg_url) == [] and pg_table_names(other) == []
    finally:
        pg_server.drop_database(other)


def test_migrate_accepts_a_database_url_naming_its_target_or_forcing_sqlite(seeded, pg_server, pg_url, capsys):
    assert main(["migrate", "--to", pg_url, "--database-url", pg_url, "--data-dir", str(seeded)]) == 0
    assert "verified" in capsys.readouterr().out
    other = pg_server.new_database()
    try:
        assert main(["migrate", "--to", other, "--database-url", "", "--data-dir", str(seeded)]) == 0
    finally:
        pg_server.drop_database(other)


def test_migrate_help_says_the_source_is_always_the_sqlite_database(capsys):
    with pytest.raises(SystemExit):
        build_parser().parse_args(["migrate", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "The source is always that SQLite database" in text and "must name the --to database" in text
