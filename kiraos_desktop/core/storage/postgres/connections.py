"""PostgreSQL connections for the store: what a failed or lost connection means, said for people."""
from __future__ import annotations

import peewee
import psycopg
from psycopg.conninfo import conninfo_to_dict

from kiraos_desktop.core.memory.records import StoreUnavailable
from kiraos_desktop.core.storage.database_url import DatabaseUrlError, parse_database_url

#: What a failed statement or connection attempt raises.
DB_ERRORS = (psycopg.Error, peewee.DatabaseError, peewee.InterfaceError)


def server_address(url: str) -> tuple[str, str, str]:
    """(host:port/database, user, database) of a URL, for messages (never the password)."""
    try:
        info = conninfo_to_dict(url)
    except psycopg.Error:
        return "the configured address", "?", "?"
    host = info.get("host") or "localhost"
    port = info.get("port") or "5432"
    database = info.get("dbname") or info.get("user") or "?"
    return f"{host}:{port}/{database}", info.get("user") or "?", database


def connect_error(url: str, exc: BaseException) -> StoreUnavailable:
    """The StoreUnavailable for a failed connection attempt: what went wrong and what to do."""
    where, user, database = server_address(url)
    text = str(exc).lower()
    if "password" in text or "authentication" in text or ("role" in text and "does not exist" in text):
        return StoreUnavailable(f"PostgreSQL at {where} refused user {user!r}: check the user name and "
                                "password of the database URL.")
    if "database" in text and "does not exist" in text:
        return StoreUnavailable(f"PostgreSQL has no database {database!r} ({where}): create it or correct "
                                "the database URL.")
    if isinstance(exc, psycopg.ProgrammingError) or "invalid" in text or "missing" in text:
        return StoreUnavailable("The database URL is not valid: write it as "
                                "postgresql://user:password@host:port/database.")
    if any(sign in text for sign in _UNREACHABLE):
        return StoreUnavailable(f"Cannot reach PostgreSQL at {where}: check that the server is running and that "
                                "the host and port of the database URL are right.")
    # Reached, and refused for another reason (SSL required by one side, an option the role may not
    # set, too many connections, ...): what the server said is what to fix.
    return StoreUnavailable(f"PostgreSQL at {where} refused the connection: {server_said(url, exc)}")


#: Words of a connection attempt that never reached a server (refused, timed out, unknown host).
_UNREACHABLE = ("connection refused", "timeout", "timed out", "could not translate host name",
                "name or service not known", "no route to host", "network is unreachable",
                "could not connect", "no such file or directory", "nodename nor servname")


def server_said(url: str, exc: BaseException) -> str:
    """The driver's message on one line, without the URL's secrets, at most 300 characters."""
    said = " ".join(str(exc).split())
    said = said.split(" failed: ", 1)[-1] if " failed: " in said else said  # the server's own words
    try:
        said = parse_database_url(url).hide_secrets(said)
    except DatabaseUrlError:
        pass
    return said[:300] or type(exc).__name__


def dead(conn) -> bool:
    return conn is None or conn.closed or getattr(conn, "broken", False)


def connection_lost(exc: BaseException) -> bool:
    """Whether an error says the connection is gone, even while psycopg has not marked it broken yet:
    the server's shutdown (SQLSTATE 57P01-03), a connection exception (class 08), or a client-side
    OperationalError without a SQLSTATE (e.g. a pipeline left busy by a server that went away).
    A deadlock or serialization failure is not (it is retried)."""
    if not isinstance(exc, psycopg.OperationalError) or isinstance(exc, psycopg.errors.TransactionRollback):
        return False
    state = exc.sqlstate
    return state is None or state.startswith(("08", "57P"))


def close_quietly(conn: psycopg.Connection) -> None:
    try:
        conn.close()
    except DB_ERRORS:
        pass


def shown_url(url: str) -> str:
    """The server and database of `url` without its secrets."""
    try:
        return parse_database_url(url).redacted()
    except DatabaseUrlError:
        return "PostgreSQL"
