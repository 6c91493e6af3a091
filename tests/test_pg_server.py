"""The test session's PostgreSQL server: databases are separate, empty, and survive a server restart."""
import psycopg
import pytest


def test_new_databases_are_empty_and_separate(pg_server, pg_url):
    other = pg_server.new_database()
    try:
        with psycopg.connect(pg_url) as conn:
            conn.execute("CREATE TABLE marker (n int)")
            conn.execute("INSERT INTO marker VALUES (1)")
        with psycopg.connect(other) as conn:
            tables = conn.execute("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'").fetchone()[0]
        assert tables == 0
        with psycopg.connect(pg_url) as conn:
            assert conn.execute("SELECT n FROM marker").fetchall() == [(1,)]
    finally:
        pg_server.drop_database(other)


def test_a_wrong_password_is_refused(pg_server, pg_url):
    wrong = pg_server.url(pg_url.rsplit("/", 1)[1], password="not-the-password")
    with pytest.raises(psycopg.OperationalError, match="password authentication failed"):
        psycopg.connect(wrong, connect_timeout=5)


def test_data_survives_a_restart(pg_server, pg_url):
    if not pg_server.managed:
        pytest.skip("the developer's own server is not restarted by the tests")
    with psycopg.connect(pg_url) as conn:
        conn.execute("CREATE TABLE marker (n int)")
        conn.execute("INSERT INTO marker VALUES (7)")
    pg_server.restart()
    with psycopg.connect(pg_url) as conn:
        assert conn.execute("SELECT n FROM marker").fetchall() == [(7,)]
