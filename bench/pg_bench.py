"""PostgreSQL benchmark: memory_update and /v1/context on one SQLite `serve`, one and two PostgreSQL `serve`s.

python bench/pg_bench.py [--users 10000] [--duration 8] [--connections 8]
python bench/pg_bench.py --rounds 5 [--writer-threads 1,4] [--compare-with CHECKOUT] [--two] [--commit-delay-us US]

Same data (the shared kit's seeded database, copied into PostgreSQL with `kiraos-desktop migrate`),
same load (wrk -t1 with the kit's ctx.lua and upd.lua, `--connections` in all: with two instances,
half of them on each), one run per setup. Prints requests/s, p50/p99 and where the CPU time goes:
the `serve` processes against the PostgreSQL server's processes, in ms per request. Writes
bench/out/pg_bench.json.

With --rounds N, memory_update only, alternating: every round runs each setup once (a new serve,
2 s of load not counted, then the measured run), starting with another setup each round, so the
machine's changing load spreads over all of them; then medians and each setup's median ratio to
SQLite's run of the same round. The setups: SQLite, PostgreSQL with one instance per
--writer-threads count (default: the code's own PG_WRITER_THREADS), that of another checkout of the
repository (--compare-with, e.g. the code before a change, as it is), two PostgreSQL instances (--two). The server: $KIRAOS_BENCH_DATABASE_URL (an empty database; its CPU is only
measured when it runs on this machine), else a throw-away cluster like the tests' (Debian's
`postgresql` package). Without either it says so and exits 0: PostgreSQL is optional. No targets:
the figures are for docs/postgresql.md.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
sys.path[:0] = [str(BENCH), str(REPO)]

from api_bench import (  # noqa: E402
    OUT,
    TOKEN,
    build_indexes,
    cpu_seconds,
    ensure_wrk,
    free_port,
    parse_wrk,
    seed_database,
    shared_bench_dir,
    wait_healthy,
    warm_up,
    wrap_script,
)

_UNITS = {"us": 0.001, "ms": 1.0, "s": 1000.0}


def get_server(commit_delay_us: int = 0):
    """(url of an empty database, the throw-away PgServer or None), or exit 0 without a server.
    `commit_delay_us`: every commit's flush waits that long first (PostgreSQL's commit_delay), as on
    a slower disk or with a synchronous standby, where a write waits on the commit more than on CPU."""
    given = os.environ.get("KIRAOS_BENCH_DATABASE_URL")
    if given:
        if commit_delay_us:
            sys.exit("pg_bench: --commit-delay-us needs the throw-away server (KIRAOS_BENCH_DATABASE_URL is set)")
        return given, None
    try:
        from tests.pg_server import PostgresUnavailable, start_server
    except ImportError as exc:
        print(f"pg_bench: skipped: the tests' PostgreSQL helper cannot be loaded ({exc})")
        sys.exit(0)
    os.environ.pop("KIRAOS_TEST_DATABASE_URL", None)  # always a throw-away cluster here
    try:
        server = start_server()
    except (PostgresUnavailable, OSError) as exc:  # OSError: KIRAOS_TEST_PG_BIN names no initdb
        print(f"pg_bench: skipped: no PostgreSQL server ({exc}); set KIRAOS_BENCH_DATABASE_URL or install "
              "Debian's postgresql package")
        sys.exit(0)
    # The tests' cluster trades durability for speed; a benchmark runs PostgreSQL's defaults, as an
    # operator would (every commit flushed: stricter than SQLite's synchronous=normal in WAL mode).
    import psycopg

    with psycopg.connect(server.admin_url, autocommit=True) as conn:
        for setting in ("fsync", "synchronous_commit", "full_page_writes"):
            conn.execute(f"ALTER SYSTEM SET {setting} = on")
        if commit_delay_us:  # commit_siblings 0: every flush waits, not only under concurrency
            conn.execute(f"ALTER SYSTEM SET commit_delay = {int(commit_delay_us)}")
            conn.execute("ALTER SYSTEM SET commit_siblings = 0")
        conn.execute("SELECT pg_reload_conf()")
    return server.new_database(), server


def postgres_pids(server, database_url: str) -> list[int]:
    """The processes whose CPU counts as PostgreSQL's: the whole throw-away cluster (postmaster and
    every child), or for a given server the backends of our database when they run on this machine."""
    if server is not None and server.managed:
        pidfile = Path(server._data_dir) / "postmaster.pid"
        master = int(pidfile.read_text().splitlines()[0])
        return [master] + _children(master)
    import psycopg

    with psycopg.connect(database_url, autocommit=True) as conn:
        rows = conn.execute("SELECT pid FROM pg_stat_activity WHERE datname = current_database()").fetchall()
    return [pid for (pid,) in rows if Path(f"/proc/{pid}").exists()]


def _children(parent: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == parent:
            found.append(int(entry.name))
    return found


def total_cpu(pids: list[int]) -> float:
    return sum(cpu_seconds(pid) or 0.0 for pid in pids)


def parse_p50(text: str) -> float | None:
    found = re.search(r"^\s+50%\s+([\d.]+)(us|ms|s)\s*$", text, re.MULTILINE)
    return float(found.group(1)) * _UNITS[found.group(2)] if found else None


def run_load(wrk: str, urls: list[str], script: Path, duration: float, connections: int,
             server_pids: list[int], pg_pids) -> dict:
    """wrk on every URL at once, `connections` split between them; sums, worst percentiles, CPU per request."""
    share = max(1, connections // len(urls))
    outputs: list[str] = [""] * len(urls)

    def one(n: int) -> None:
        cmd = [wrk, "-t1", f"-c{share}", f"-d{duration:g}s", "--latency", "-s", str(script),
               "-H", f"Authorization: Bearer {TOKEN}", urls[n]]
        outputs[n] = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout

    pg = pg_pids()
    before_server, before_pg = total_cpu(server_pids), total_cpu(pg)
    threads = [threading.Thread(target=one, args=(n,)) for n in range(len(urls))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    server_cpu, pg_cpu = total_cpu(server_pids) - before_server, total_cpu(pg) - before_pg
    parsed = [parse_wrk(text) for text in outputs]
    requests = sum(int(re.search(r"(\d+) requests in", text).group(1)) for text in outputs)
    p50s = [parse_p50(text) for text in outputs]
    result = {"rps": sum(p["rps"] for p in parsed), "p50_ms": max(p for p in p50s if p is not None),
              "p99_ms": max(p["p99_ms"] for p in parsed), "non_2xx": sum(p["non_2xx"] for p in parsed),
              "requests": requests, "per_instance_rps": [round(p["rps"]) for p in parsed]}
    if requests:
        result["server_cpu_ms_per_request"] = round(server_cpu * 1000 / requests, 3)
        result["postgres_cpu_ms_per_request"] = round(pg_cpu * 1000 / requests, 3) if pg else None
    return result


# `serve` with another number of writer threads than the code's (for --writer-threads): the
# constant is read when the app is built, after this has set it.
_WITH_THREADS = ("import runpy, sys\nfrom kiraos_desktop.core.storage.postgres import store\n"
                 "store.PG_WRITER_THREADS = int(sys.argv.pop(1))\n"
                 "runpy.run_module('kiraos_desktop', run_name='__main__', alter_sys=True)\n")


def start_serve(work: Path, name: str, *, db: Path | None = None, database_url: str | None = None,
                checkout: Path = REPO, threads: int | None = None):
    """A `serve` of `checkout` (its own package first on the path) on a free port; `threads`: its
    PG_WRITER_THREADS instead of the code's."""
    port = free_port()
    program = ["-m", "kiraos_desktop"] if threads is None else ["-c", _WITH_THREADS, str(threads)]
    args = [sys.executable, *program, "serve", "--data-dir", str(work / f"data-{name}"),
            "--port", str(port), "--token", TOKEN]
    args += ["--db", str(db)] if db is not None else ["--database-url", database_url]
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    proc = subprocess.Popen(args, cwd=checkout, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    wait_healthy(url, proc)
    return url, proc


def stop(procs) -> None:
    for proc in procs:
        if proc.poll() is None:
            proc.send_signal(2)
    for proc in procs:
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()


def migrate(source: Path, work: Path, database_url: str) -> float:
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "kiraos_desktop", "migrate", "--to", database_url,
                           "--data-dir", str(work / "data-migrate"), "--db", str(source)],
                          cwd=REPO, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"pg_bench: migrate failed ({done.returncode}): {done.stderr.strip()[-500:]}")
    return time.monotonic() - started


def build_pg_indexes(work: Path, database_url: str) -> float:
    """Index the copied data for recall and the user search before serving, as build_indexes does
    for the SQLite copy (serve would otherwise build them in the background during the runs)."""
    code = ("import sys\nfrom kiraos_desktop.core.engine import Engine\n"
            "from kiraos_desktop.core.recall import ranking as recall\nfrom kiraos_desktop.core.storage import user_search\n"
            "engine = Engine.open(data_dir=sys.argv[1], database_url=sys.argv[2], install_examples=False)\n"
            "recall.build_index(engine.store); user_search.build_index(engine.store); engine.close()\n")
    started = time.monotonic()
    subprocess.run([sys.executable, "-c", code, str(work / "data-migrate"), database_url], cwd=REPO, check=True)
    return time.monotonic() - started


def describe(label: str, result: dict) -> str:
    pg = result.get("postgres_cpu_ms_per_request")
    pg_text = f"{pg:6.3f}" if pg is not None else "   n/a"
    per = "+".join(str(r) for r in result["per_instance_rps"]) if len(result["per_instance_rps"]) > 1 else ""
    return (f"  {label:22s} {result['rps']:8.0f} req/s {('(' + per + ')') if per else '':14s} p50 "
            f"{result['p50_ms']:6.2f} ms  p99 {result['p99_ms']:7.2f} ms  cpu/req serve "
            f"{result.get('server_cpu_ms_per_request', float('nan')):6.3f} ms, postgres {pg_text} ms"
            + (f"  non-2xx {result['non_2xx']}" if result["non_2xx"] else ""))


def alternate(args, wrk: str, work: Path, upd: Path, sqlite_db: Path, database_url: str, server) -> dict:
    """--rounds: memory_update on every setup once per round, each round starting with the next setup."""
    setups: dict[str, dict] = {"sqlite, 1 instance": {"db": sqlite_db, "count": 1}}
    for threads in args.writer_threads or [None]:
        label = "postgres, 1 instance" + (f", {threads} writer threads" if threads is not None else "")
        setups[label] = {"database_url": database_url, "count": 1, "threads": threads}
    if args.compare_with:
        setups[f"postgres, 1 instance, {args.compare_with.name}"] = {
            "database_url": database_url, "count": 1, "checkout": args.compare_with}
    if args.two:
        setups["postgres, 2 instances"] = {"database_url": database_url, "count": 2}
    labels = list(setups)
    runs: dict[str, list[dict]] = {label: [] for label in labels}
    pg_pids = lambda: postgres_pids(server, database_url)  # noqa: E731
    print(f"memory_update, wrk -t1, {args.connections} connections in all, {args.duration:g} s per run, "
          f"{args.rounds} alternating rounds:", flush=True)
    for round_no in range(args.rounds):
        for label in labels[round_no % len(labels):] + labels[:round_no % len(labels)]:
            setup = setups[label]
            started = [start_serve(work, f"r{round_no}{labels.index(label)}{n}", db=setup.get("db"),
                                   database_url=setup.get("database_url"), checkout=setup.get("checkout", REPO),
                                   threads=setup.get("threads")) for n in range(setup["count"])]
            urls, procs = [u for u, _ in started], [p for _, p in started]
            try:
                pids = [p.pid for p in procs]
                pgs = pg_pids if "database_url" in setup else (lambda: [])
                run_load(wrk, urls, upd, 2, args.connections, pids, pgs)  # not counted: connections, caches
                result = run_load(wrk, urls, upd, args.duration, args.connections, pids, pgs)
            finally:
                stop(procs)
            runs[label].append(result)
            print(describe(f"r{round_no + 1} {label}", result), flush=True)
    summary = {}
    for label in labels:
        mine = runs[label]
        ratios = [r["rps"] / s["rps"] for r, s in zip(mine, runs[labels[0]]) if s["rps"]]
        summary[label] = {
            "rps_median": statistics.median(r["rps"] for r in mine),
            "p50_ms_median": statistics.median(r["p50_ms"] for r in mine),
            "p99_ms_median": statistics.median(r["p99_ms"] for r in mine),
            "server_cpu_ms_median": statistics.median(r.get("server_cpu_ms_per_request", 0) for r in mine),
            "postgres_cpu_ms_median": (statistics.median(r["postgres_cpu_ms_per_request"] for r in mine)
                                       if mine[0].get("postgres_cpu_ms_per_request") is not None else None),
            "ratio_to_sqlite_median": statistics.median(ratios) if ratios else None,
            "rps_runs": [round(r["rps"]) for r in mine], "non_2xx": sum(r["non_2xx"] for r in mine)}
    print("\nmedians (req/s, p50/p99 ms, CPU ms per request: serve + postgres, req/s of SQLite's in the same round)")
    for label, m in summary.items():
        pg = m["postgres_cpu_ms_median"]
        print(f"  {label:42s} {m['rps_median']:7.0f}  {m['p50_ms_median']:6.2f}/{m['p99_ms_median']:7.2f}  "
              f"{m['server_cpu_ms_median']:.3f} + {f'{pg:.3f}' if pg is not None else 'n/a'}  "
              f"{m['ratio_to_sqlite_median']:.2f}x  runs {m['rps_runs']}")
    return {"memory_update": {"runs": runs, "medians": summary}}


def one_run_each(args, wrk: str, work: Path, ctx: Path, upd: Path, sqlite_db: Path, database_url: str,
                 server) -> dict:
    """Without --rounds: /v1/context then memory_update, one run each, on SQLite, one and two PostgreSQL instances."""
    results: dict = {}
    setups = {"sqlite, 1 instance": {"db": sqlite_db, "count": 1},
              "postgres, 1 instance": {"database_url": database_url, "count": 1},
              "postgres, 2 instances": {"database_url": database_url, "count": 2}}
    print(f"wrk -t1, {args.connections} connections in all, {args.duration:g} s per run, one run each:")
    for label, setup in setups.items():
        started = [start_serve(work, f"{label[:2]}{n}", db=setup.get("db"),
                               database_url=setup.get("database_url")) for n in range(setup["count"])]
        urls, procs = [u for u, _ in started], [p for _, p in started]
        try:
            pids = [p.pid for p in procs]
            pg_pids = (lambda: postgres_pids(server, database_url)) if "postgres" in label else (lambda: [])
            warm = [warm_up(url, args.users, args.connections) for url in urls]
            print(f"  {label}: warm-up (every user's context once per instance) "
                  f"{' + '.join(f'{w:.1f}' for w in warm)} s", flush=True)
            for route, script in (("/v1/context", ctx), ("memory_update", upd)):
                result = run_load(wrk, urls, script, args.duration, args.connections, pids, pg_pids)
                results.setdefault(route, {})[label] = result
                print(describe(f"{route} {label}", result), flush=True)
        finally:
            stop(procs)
    return results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=10000)
    parser.add_argument("--duration", type=float, default=8.0, help="seconds per wrk run")
    parser.add_argument("--connections", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=0,
                        help="memory_update only, this many alternating rounds of every setup (see above)")
    parser.add_argument("--writer-threads", type=lambda text: [int(n) for n in text.split(",")], default=[],
                        help="with --rounds: one PostgreSQL setup per count of writer threads, e.g. 1,2,4")
    parser.add_argument("--compare-with", type=Path, metavar="CHECKOUT",
                        help="with --rounds: also one PostgreSQL instance of another checkout of the repository")
    parser.add_argument("--two", action="store_true", help="with --rounds: also two PostgreSQL instances")
    parser.add_argument("--commit-delay-us", type=int, default=0, metavar="US",
                        help="make every commit's flush wait this long (commit_delay, at most 100000): a "
                             "slower disk or a synchronous standby, where writes wait on the commit")
    args = parser.parse_args()
    if (args.writer_threads or args.compare_with or args.two) and not args.rounds:
        parser.error("--writer-threads, --compare-with and --two go with --rounds")
    if args.compare_with:
        args.compare_with = args.compare_with.resolve()
    kit = shared_bench_dir()
    wrk = ensure_wrk()
    database_url, server = get_server(args.commit_delay_us)
    seed = seed_database(kit, args.users)
    try:
        with tempfile.TemporaryDirectory(prefix="kiraos-pgbench-", dir=OUT) as tmp:
            work = Path(tmp)
            sqlite_db = work / "sqlite.db"
            shutil.copyfile(seed, sqlite_db)
            build_indexes(sqlite_db, work)
            source = work / "source.db"
            shutil.copyfile(seed, source)
            seconds = migrate(source, work, database_url)
            print(f"copied the {args.users}-user database into PostgreSQL with migrate in {seconds:.1f} s", flush=True)
            seconds = build_pg_indexes(work, database_url)
            print(f"recall and user search indexes of the copy built in PostgreSQL in {seconds:.1f} s", flush=True)
            ctx, upd = wrap_script(kit / "ctx.lua", work), wrap_script(kit / "upd.lua", work)
            if args.rounds:
                results = alternate(args, wrk, work, upd, sqlite_db, database_url, server)
            else:
                results = one_run_each(args, wrk, work, ctx, upd, sqlite_db, database_url, server)
    finally:
        if server is not None:
            server.shutdown()
    return _report(args, results)


def _report(args, results: dict) -> int:
    if not args.rounds:
        _print_summary(results)
    report = {"when": time.strftime("%Y-%m-%dT%H:%M:%S"), "users": args.users, "duration_s": args.duration,
              "connections": args.connections, "rounds": args.rounds, "cpus": os.cpu_count(),
              "compared_with": str(args.compare_with) if args.compare_with else None,
              "commit_delay_us": args.commit_delay_us,
              "load_average_at_end": os.getloadavg() if hasattr(os, "getloadavg") else None, "results": results}
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "pg_bench.json").write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(f"results written to {OUT / 'pg_bench.json'}")
    if args.rounds:
        bad = sum(m["non_2xx"] for m in results["memory_update"]["medians"].values())
    else:
        bad = sum(r["non_2xx"] for by_setup in results.values() for r in by_setup.values())
    if bad:
        print(f"pg_bench: {bad} replies were not 2xx", file=sys.stderr)
    return 1 if bad else 0


def _print_summary(results: dict) -> None:
    print("\nsummary (req/s, p50/p99 ms, CPU ms per request: serve + postgres)")
    for route, by_setup in results.items():
        for label, r in by_setup.items():
            pg = r.get("postgres_cpu_ms_per_request")
            print(f"  {route:14s} {label:22s} {r['rps']:8.0f}  {r['p50_ms']:6.2f}/{r['p99_ms']:7.2f}  "
                  f"{r.get('server_cpu_ms_per_request', 0):.3f} + {pg if pg is not None else 'n/a'}")


if __name__ == "__main__":
    sys.exit(main())
