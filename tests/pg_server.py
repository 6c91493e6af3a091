"""A throw-away PostgreSQL server for the test session: initdb + pg_ctl in a temp dir, one database per test.

Found in this order: `KIRAOS_TEST_DATABASE_URL` (a developer's own server; its user must be allowed
to create databases), else the binaries of Debian's `postgresql` package (/usr/lib/postgresql/*/bin)
or `initdb` on PATH. Running as root, the cluster runs as the `postgres` user (PostgreSQL refuses
root). With `KIRAOS_REQUIRE_POSTGRES=1` (CI sets it) a missing server fails the tests; elsewhere
they are skipped with the reason.
"""
from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import uuid
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

SUPERUSER = "kiraos_test"
PASSWORD = "test-secret"


class PostgresUnavailable(RuntimeError):
    """No PostgreSQL server can be started or reached here; the message says why."""


def _bin_dir() -> Path | None:
    override = os.environ.get("KIRAOS_TEST_PG_BIN")
    if override:
        return Path(override)
    versions = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"),
                      key=lambda p: int(Path(p).parent.parent.name) if Path(p).parent.parent.name.isdigit() else 0)
    if versions:
        return Path(versions[-1]).parent
    found = shutil.which("initdb")
    return Path(found).parent if found else None


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class PgServer:
    """A running server: `url(db)` addresses a database, `new_database()` makes an empty one."""

    def __init__(self, admin_url: str, *, data_dir: Path | None = None, bin_dir: Path | None = None,
                 run_as: str | None = None) -> None:
        self.admin_url = admin_url
        self._data_dir = data_dir
        self._bin_dir = bin_dir
        self._run_as = run_as
        self.managed = data_dir is not None  # started by us: may be restarted and is removed at the end

    # ---- addresses ----------------------------------------------------------------------

    def url(self, database: str, *, password: str | None = None) -> str:
        parts = urlsplit(self.admin_url)
        netloc = parts.netloc
        if password is not None:
            user = netloc.split("@", 1)[0].split(":", 1)[0]
            netloc = f"{user}:{password}@{netloc.split('@', 1)[1]}"
        return urlunsplit((parts.scheme, netloc, "/" + database, "", ""))

    def _admin(self):
        import psycopg

        return psycopg.connect(self.admin_url, autocommit=True, connect_timeout=5)

    def new_database(self) -> str:
        """A new, empty database; its URL (with the password)."""
        name = "kd_" + uuid.uuid4().hex[:12]
        with self._admin() as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def drop_database(self, url: str) -> None:
        name = urlsplit(url).path.lstrip("/")
        with self._admin() as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    # ---- lifecycle (managed servers only) ----------------------------------------------

    def _run(self, *args: str) -> None:
        command = [str(self._bin_dir / args[0]), *args[1:]]
        if self._run_as:
            command = ["runuser", "-u", self._run_as, "--", *command]
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=120)

    def start(self) -> None:
        self._run("pg_ctl", "-D", str(self._data_dir), "-l", str(self._data_dir / "server.log"), "-w", "start")

    def stop(self, mode: str = "fast") -> None:
        self._run("pg_ctl", "-D", str(self._data_dir), "-m", mode, "-w", "stop")

    def restart(self) -> None:
        self.stop()
        self.start()

    def shutdown(self) -> None:
        if not self.managed:
            return
        try:
            self.stop("immediate")
        except (subprocess.SubprocessError, OSError):
            pass
        shutil.rmtree(self._data_dir.parent, ignore_errors=True)


def start_server() -> PgServer:
    """The developer's server (KIRAOS_TEST_DATABASE_URL) or a new cluster; PostgresUnavailable if neither."""
    try:
        import psycopg  # noqa: F401
    except ImportError as exc:
        raise PostgresUnavailable(f"psycopg is not installed ({exc})") from None
    given = os.environ.get("KIRAOS_TEST_DATABASE_URL")
    if given:
        return PgServer(given)
    bin_dir = _bin_dir()
    if bin_dir is None:
        raise PostgresUnavailable("no PostgreSQL server binaries (install Debian's `postgresql` package "
                                  "or set KIRAOS_TEST_DATABASE_URL)")
    run_as = None
    base = Path(tempfile.mkdtemp(prefix="kiraos-pg-"))
    if os.geteuid() == 0:
        run_as = "postgres"
        owner = pwd.getpwnam(run_as)
        os.chmod(base, 0o755)
    data_dir = base / "data"
    pwfile = base / "pw"
    pwfile.write_text(PASSWORD + "\n")
    if run_as:
        os.chown(base, owner.pw_uid, owner.pw_gid)
        os.chown(pwfile, owner.pw_uid, owner.pw_gid)
    port = _free_port()
    server = PgServer(f"postgresql://{SUPERUSER}:{PASSWORD}@127.0.0.1:{port}/postgres",
                      data_dir=data_dir, bin_dir=bin_dir, run_as=run_as)
    try:
        server._run("initdb", "-D", str(data_dir), "-U", SUPERUSER, f"--pwfile={pwfile}", "-E", "UTF8",
                    "--locale=C", "--auth-local=trust", "--auth-host=scram-sha-256", "--no-sync")
        with open(data_dir / "postgresql.conf", "a") as conf:
            # A test server: durability off (a clean stop still writes everything), TCP on loopback only.
            # A small lock table (10 per connection: room for about 5 000 locks here, where a default
            # server has 64 x 100 connections): a batch that took one lock per user of a big import
            # fails here with a few thousand users, not only with tens of thousands.
            conf.write(f"\nlisten_addresses = '127.0.0.1'\nport = {port}\nunix_socket_directories = '{base}'\n"
                       "fsync = off\nsynchronous_commit = off\nfull_page_writes = off\nmax_connections = 200\n"
                       "max_locks_per_transaction = 10\n")
        server.start()
    except subprocess.CalledProcessError as exc:
        shutil.rmtree(base, ignore_errors=True)
        detail = (exc.stderr or b"").decode(errors="replace").strip().splitlines()
        raise PostgresUnavailable(f"could not start PostgreSQL: {detail[-1] if detail else exc}") from None
    return server
