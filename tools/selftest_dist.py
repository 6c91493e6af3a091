"""`make selftest-dist`: the frozen folder's --self-test with both executables, and its size budget.

When a throw-away PostgreSQL server can be started (tests/pg_server.py), the self-test's `postgresql`
step connects to it, and the console executable writes a memory there and reads its block back
(`call memory_update`, then `context`, with KIRAOS_DATABASE_URL): the PostgreSQL mode's modules and
driver are imported only in that mode, so only the frozen executable using it proves the build
carries them. Without a server that part is skipped with the reason, unless
KIRAOS_REQUIRE_POSTGRES=1 (CI), which makes it a failure. psycopg (LGPL-3.0) must be separate files
in _internal/, replaceable by the user.
Usage: python tools/selftest_dist.py dist/kiraos-desktop
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
APP_NAME = "kiraos-desktop"
#: The frozen Linux folder must stay below this many MiB (as `du -sm` counts).
SIZE_BUDGET_MIB = 150
DATABASE_URL_VARIABLE = "KIRAOS_SELFTEST_DATABASE_URL"  # kiraos_desktop.selftest reads it
PG_USER, PG_KEY, PG_VALUE = "selftest_pg", "昵称", "小明"
#: LGPL-3.0 Python packages that ship as separate files a user can replace (build.spec's MODULE_COLLECTION_MODE).
REPLACEABLE_PACKAGES = ("psycopg", "psycopg_binary")


def folder_mib(folder: Path) -> float:
    """Disk usage of the folder in MiB, each file once, links not followed (what `du -s` counts)."""
    seen, total = set(), 0
    for path in [folder, *folder.rglob("*")]:
        info = path.lstat()
        if (info.st_dev, info.st_ino) not in seen:
            seen.add((info.st_dev, info.st_ino))
            total += info.st_blocks * 512
    return total / 2**20


def executables(folder: Path) -> list[Path]:
    suffix = ".exe" if sys.platform == "win32" else ""
    return [folder / f"{APP_NAME}{suffix}", folder / f"{APP_NAME}-gui{suffix}"]


def start_database():
    """(server, url of an empty database), or (None, reason)."""
    sys.path.insert(0, str(ROOT))
    from tests.pg_server import PostgresUnavailable, start_server

    try:
        server = start_server()
        return server, server.new_database()
    except PostgresUnavailable as exc:
        return None, str(exc)


def postgresql_round_trip(console: Path, url: str) -> str | None:
    """A memory written and read back by the console executable on PostgreSQL; None, or what failed."""
    env = dict(os.environ, KIRAOS_DATABASE_URL=url, PYTHONIOENCODING="utf-8")
    operations = {"operations": [{"op": "set", "key": PG_KEY, "value": PG_VALUE, "confidence": 0.9}]}
    with tempfile.TemporaryDirectory(prefix="kiraos-selftest-pg-") as data_dir:
        common = ["--data-dir", data_dir, "--user", PG_USER]
        for args in (["call", "memory_update", *common, "--json", json.dumps(operations)], ["context", *common]):
            shown = " ".join(arg for arg in args[:2] if not arg.startswith("-"))
            print(f"$ {console.name} {shown} ... (KIRAOS_DATABASE_URL set)", flush=True)
            result = subprocess.run([str(console), *args], env=env, capture_output=True, text=True,
                                    encoding="utf-8", errors="replace", timeout=300)
            if result.returncode != 0:
                return f"{args[0]} exited with {result.returncode}: {(result.stderr or result.stdout).strip()[-500:]}"
        if f"{PG_KEY}={PG_VALUE}" not in result.stdout:
            return f"the block read back lacks {PG_KEY}={PG_VALUE}: {result.stdout.strip()[:300]!r}"
    print(f"selftest-dist: PostgreSQL mode ok ({PG_KEY}={PG_VALUE} written and read back)")
    return None


def main(argv: list[str]) -> int:
    folder = Path(argv[1] if len(argv) > 1 else ROOT / "dist" / APP_NAME)
    inside = [name for name in REPLACEABLE_PACKAGES if not (folder / "_internal" / name / "__init__.pyc").is_file()]
    if inside:
        print(f"selftest-dist: not separate files in _internal/: {', '.join(inside)}", file=sys.stderr)
        return 1
    server, url_or_reason = start_database()
    try:
        if server is None:
            if os.environ.get("KIRAOS_REQUIRE_POSTGRES") == "1":
                print(f"selftest-dist: no PostgreSQL server: {url_or_reason}", file=sys.stderr)
                return 1
            print(f"selftest-dist: the PostgreSQL connection is not checked: {url_or_reason}")
        for executable in executables(folder):
            env = dict(os.environ)
            if server is not None:
                env[DATABASE_URL_VARIABLE] = url_or_reason
            print(f"$ {executable} --self-test", flush=True)
            if subprocess.run([str(executable), "--self-test"], env=env, timeout=600).returncode != 0:
                return 1
        if server is not None:
            failure = postgresql_round_trip(executables(folder)[0], url_or_reason)
            if failure:
                print(f"selftest-dist: PostgreSQL mode failed: {failure}", file=sys.stderr)
                return 1
    finally:
        if server is not None:
            server.drop_database(url_or_reason)
            server.shutdown()
    size = folder_mib(folder)
    print(f"selftest-dist: {folder} takes {size:.1f} MiB")
    if sys.platform.startswith("linux") and size >= SIZE_BUDGET_MIB:
        print(f"selftest-dist: over the {SIZE_BUDGET_MIB} MiB budget (build.spec decides what is bundled)",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
