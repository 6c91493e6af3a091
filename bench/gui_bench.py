"""GUI benchmark on 100k users / 1M profile rows / 5M events with the real main window (DESIGN §8).

python bench/gui_bench.py [--quick] [--repeat 5] [--stall-runs 3] [--stall-seconds 10] [--rate 500]
                          [--threads 2] [--driver thread|process] [--remigrate] [--diagnose]

Measures, with the real MainWindow, UsersPage and UserDetail on a generated plugin database:
  summary build  the one-time user_summary build when Engine.open meets an unmigrated plugin db
  first page     Engine.open + MainWindow built + Users page shown until the user list has painted
  search         user-id search: from the (debounced) search firing to the filtered list painted
  content search "Also search in keys, values and events" ticked: from the search firing to the list of
                 matching users (count and first page, read on a worker thread) painted; words of events
                 (common and rare), of profile values, two words, English, and no match. A one-character
                 search (the documented LIKE fallback, a scan) is measured and printed apart, without a target.
  open user      select a user until its Profile tab painted; and Profile + Events + Context tabs
  stall          longest gap of a 10 ms QTimer heartbeat on the GUI thread while threads (or, with
                 --driver process, another process) drive memory_update over HTTP at --rate
                 requests/s against the in-process ApiServer, with the Users page open (list + one
                 user) refreshing on every coalesced change; the rate reached is printed beside it
                 (the server's own ceiling can be below --rate). --diagnose adds a run with the
                 Skills page's user picker detached from the store, to show its share.
The data is generated once by bench/gui_data.py and cached in bench/out/ (the plugin-schema file and
a migrated copy); each run works on a fresh copy of the migrated file. --quick uses 10k/100k/500k.
Prints medians, the targets and PASS/FAIL, writes bench/out/gui_bench.json; exit status 1 on a miss.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

if not os.environ.get("DISPLAY") and not os.environ.get("WAYLAND_DISPLAY"):
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))
OUT = REPO / "bench" / "out"

from PySide6.QtCore import QEvent, QEventLoop, QObject, QSettings  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

import gui_data  # noqa: E402
from gui_load import TOKEN, drive_writes, drive_writes_in_process, heartbeat_gaps  # noqa: E402
from kiraos_desktop.core.engine import Engine  # noqa: E402

TARGETS_MS = {"first_page": 1000.0, "search": 150.0, "content_search": 150.0, "open_user": 100.0, "stall": 100.0}
#: Content searches: every word of gui_data's texts is common (a few thousand to ~90k users each).
CONTENT_TERMS = ["面试", "冰岛", "吉他 火锅", "Python", "周杰伦", "演唱会 冰岛 杭州", "没有这个词语"]
FALLBACK_TERM = "猫"
FULL = (100_000, 1_000_000, 5_000_000)
QUICK = (10_000, 100_000, 500_000)


_PUMP: list = []


def pump() -> None:
    """Process pending events. QCoreApplication.processEvents() in PySide6 6.12 / Python 3.11 drops a
    reference to None on every call (a crash after a few thousand calls); QEventLoop's does not."""
    if not _PUMP:
        _PUMP.append(QEventLoop())
    _PUMP[0].processEvents()


def ms(seconds: float) -> float:
    return round(seconds * 1000, 1)


class PaintProbe(QObject):
    """Records when a widget (a view's viewport) next paints."""

    def __init__(self, widget):
        super().__init__()
        self.painted_at: float | None = None
        widget.installEventFilter(self)
        self._widget = widget

    def reset(self) -> None:
        self.painted_at = None

    def eventFilter(self, watched, event) -> bool:
        if event.type() == QEvent.Type.Paint and self.painted_at is None:
            self.painted_at = time.perf_counter()
        return False

    def wait(self, app: QApplication, timeout: float = 30.0) -> float:
        deadline = time.perf_counter() + timeout
        while self.painted_at is None and time.perf_counter() < deadline:
            pump()
        if self.painted_at is None:
            raise RuntimeError("the view never painted")
        return self.painted_at


# ---- data ---------------------------------------------------------------------------------------

def prepare_data(sizes: tuple[int, int, int], remigrate: bool) -> tuple[Path, dict]:
    """(migrated db, meta with the one-time summary build time); generated and cached in bench/out."""
    users, profiles, events = sizes
    OUT.mkdir(parents=True, exist_ok=True)
    stem = f"gui-{users}u-{profiles}p-{events}e-s7"
    raw, migrated, meta_file = OUT / f"{stem}.plugin.db", OUT / f"{stem}.db", OUT / f"{stem}.json"
    if not raw.exists():
        print(f"generating {raw.name} (once; cached) ...", flush=True)
        partial = raw.with_suffix(".partial")
        partial.unlink(missing_ok=True)
        gui_data.generate(partial, users, profiles, events)
        partial.rename(raw)
    if remigrate or not migrated.exists() or not meta_file.exists():
        print(f"migrating a copy of {raw.name} with Engine.open (one-time summary build) ...", flush=True)
        partial = migrated.with_suffix(".partial")
        shutil.copyfile(raw, partial)
        with tempfile.TemporaryDirectory(prefix="kiraos-gui-bench-") as data_dir:
            started = time.perf_counter()
            engine = Engine.open(data_dir=data_dir, db=partial)
            build_s = time.perf_counter() - started
            migrations = list(engine.store.migrations)
            engine.close()
        for suffix in ("-wal", "-shm"):
            Path(str(partial) + suffix).unlink(missing_ok=True)
        partial.rename(migrated)
        meta_file.write_text(json.dumps({"summary_build_ms": ms(build_s), "migrations": migrations,
                                         "measured_at": time.strftime("%Y-%m-%d %H:%M:%S")}, indent=1))
    meta = json.loads(meta_file.read_text())
    recall_s = build_recall_index(migrated)
    if recall_s is not None:
        meta["recall_index_build_ms"] = ms(recall_s)
        meta_file.write_text(json.dumps(meta, indent=1))
    search_s = build_user_search_index(migrated)
    if search_s is not None:
        meta["user_search_index_build_ms"] = ms(search_s)
        meta_file.write_text(json.dumps(meta, indent=1))
    return migrated, meta


def build_recall_index(db: Path) -> float | None:
    """Index the cached database's events for recall once (resumable), as the window does on its first
    open, so that the measured windows do not build it meanwhile; the seconds it took, None when done."""
    from kiraos_desktop.core.recall.ranking import build_index

    with tempfile.TemporaryDirectory(prefix="kiraos-gui-bench-") as data_dir:
        engine = Engine.open(data_dir=data_dir, db=db)
        try:
            if engine.store.recall_build_complete:
                return None
            print(f"indexing the events of {db.name} for recall (once; cached) ...", flush=True)
            started = time.perf_counter()
            build_index(engine.store)
            return time.perf_counter() - started
        finally:
            engine.close()


def build_user_search_index(db: Path) -> float | None:
    """Index the cached database's keys, values and events for the user search once (resumable), as the
    window does on its first open; the seconds it took, None when it was done already."""
    with tempfile.TemporaryDirectory(prefix="kiraos-gui-bench-") as data_dir:
        engine = Engine.open(data_dir=data_dir, db=db)
        try:
            if engine.store.user_search_build_complete:
                return None
            print(f"indexing {db.name} for the user search (once; cached) ...", flush=True)
            started = time.perf_counter()
            while not engine.store.user_search_build_complete:
                engine.store.user_search_build_step()
            return time.perf_counter() - started
        finally:
            engine.close()


# ---- window -------------------------------------------------------------------------------------

def open_window(app: QApplication, db: Path, data_dir: Path):
    """Engine.open + MainWindow on the Users page, shown; returns (engine, window, timings)."""
    from kiraos_desktop.api.server import ApiServer
    from kiraos_desktop.ui.app import keep_startup_objects
    from kiraos_desktop.ui.main_window import PAGE_USERS, MainWindow

    ini = QSettings(str(data_dir / "ui.ini"), QSettings.Format.IniFormat)
    t0 = time.perf_counter()
    engine = Engine.open(data_dir=data_dir, db=db)
    t_engine = time.perf_counter()
    server = ApiServer(engine, "127.0.0.1", 0, TOKEN)
    window = MainWindow(engine, server, ini)
    window.show_page(PAGE_USERS)
    t_window = time.perf_counter()
    rows = window.users_page.model.rowCount()
    probe = PaintProbe(window.users_page.view.viewport())
    window.resize(1280, 800)
    window.show()
    t_painted = probe.wait(app)
    keep_startup_objects()  # as the app does once its window is up
    if rows == 0:
        raise RuntimeError("the user list is empty")
    return engine, server, window, {"engine_open": ms(t_engine - t0), "window": ms(t_window - t_engine),
                                    "first_page": ms(t_painted - t0)}


def close_window(app: QApplication, engine, server, window) -> None:
    server.stop()
    window.close()
    window.deleteLater()
    pump()
    engine.close()


def settle(app: QApplication, seconds: float = 0.05) -> None:
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pump()


def measure_search(app: QApplication, window, terms: list[str]) -> list[float]:
    """Type each term; time from the debounced search starting (UsersModel.set_search) to the paint."""
    page = window.users_page
    probe = PaintProbe(page.view.viewport())
    model = page.model
    started: list[float] = []
    original = model.set_search

    def timed_set_search(*args, **kwargs):
        started.append(time.perf_counter())
        probe.reset()
        return original(*args, **kwargs)
    model.set_search = timed_set_search  # the page calls self.model.set_search: the instance attribute wins
    results = []
    try:
        for term in terms:
            started.clear()
            page.search_edit.setText(term)
            deadline = time.perf_counter() + 10
            while not started and time.perf_counter() < deadline:
                pump()  # the 250 ms debounce is not counted
            if not started:
                raise RuntimeError("the search never ran")
            probe.wait(app)
            results.append(ms(probe.painted_at - started[0]))
    finally:
        del model.set_search
    page.search_edit.setText("")
    settle(app, 0.4)
    return results


def measure_content_search(app: QApplication, window, terms: list[str]) -> list[float]:
    """Search each term in keys, values and events; from the search starting (UsersModel.set_search) to
    the list painted after the worker's answer arrived (UsersModel.reloaded)."""
    page = window.users_page
    model = page.model
    probe = PaintProbe(page.view.viewport())
    page.content_box.setChecked(True)
    settle(app, 0.3)
    started: list[float] = []
    answered: list[float] = []
    original = model.set_search

    def timed_set_search(*args, **kwargs):
        started.append(time.perf_counter())
        return original(*args, **kwargs)

    def on_reloaded():
        answered.append(time.perf_counter())
        probe.reset()
    model.set_search = timed_set_search
    model.reloaded.connect(on_reloaded)
    results = []
    try:
        for term in terms:
            started.clear()
            answered.clear()
            page.search_edit.setText(term)
            deadline = time.perf_counter() + 60
            while not answered and time.perf_counter() < deadline:
                pump()
            if not started or not answered:
                raise RuntimeError(f"the content search for {term!r} never answered")
            probe.wait(app)
            results.append(ms(probe.painted_at - started[0]))
            if model.search_text != term.strip() or model.rowCount() > model.total:
                raise RuntimeError(f"the list does not show the search for {term!r}")
    finally:
        del model.set_search
        model.reloaded.disconnect(on_reloaded)
    page.search_edit.setText("")
    page.content_box.setChecked(False)
    settle(app, 0.4)
    return results


def measure_open_user(app: QApplication, window, user_ids: list[str]) -> tuple[list[float], list[float]]:
    from kiraos_desktop.ui.users.user_detail import TAB_CONTEXT, TAB_EVENTS, TAB_PROFILE

    page = window.users_page
    detail = page.detail
    probes = [PaintProbe(tab) for tab in (detail.profile_tab.view.viewport(), detail.events_tab, detail.context_tab)]
    profile_only, full = [], []
    for uid in user_ids:
        page.search_edit.setText(uid)  # bring the user into the list (not timed)
        page._search_timer.stop()
        page.model.set_search(uid)
        detail.tabs.setCurrentIndex(TAB_PROFILE)
        settle(app)
        for probe in probes:
            probe.reset()
        t0 = time.perf_counter()
        if not page.select_user(uid):
            raise RuntimeError(f"user {uid} not in the list")
        t_profile = probes[0].wait(app)
        spent = t_profile - t0
        for probe, tab in ((probes[1], TAB_EVENTS), (probes[2], TAB_CONTEXT)):
            t1 = time.perf_counter()
            detail.tabs.setCurrentIndex(tab)
            spent += probe.wait(app) - t1
        if detail.user_id != uid:
            raise RuntimeError("the detail shows another user")
        profile_only.append(ms(t_profile - t0))
        full.append(ms(spent))
    detail.tabs.setCurrentIndex(TAB_PROFILE)
    page.search_edit.setText("")
    page.model.set_search("")
    settle(app, 0.3)
    return profile_only, full


# ---- stall under API writes ---------------------------------------------------------------------

def measure_stall(app: QApplication, engine, server, window, seconds: float, rate: float, threads: int,
                  detach_picker: bool = False, driver: str = "thread") -> dict:
    page = window.users_page
    if detach_picker:  # diagnostic: the Skills page's user picker stops following the store
        window.skills_page.workbench.user_picker.detach()
    server.start()
    first_page = [page.model.row_at(i).user_id for i in range(min(50, page.model.rowCount()))]
    page.select_user(first_page[0])
    others = [s.user_id for s in engine.store.list_users(offset=5000, limit=2000)]
    targets = first_page + others  # writes hit visible rows, the open user, and users off screen
    settle(app, 0.3)
    idle_gaps, _ = heartbeat_gaps(2.0)
    drive = drive_writes if driver == "thread" else drive_writes_in_process
    gaps, load = heartbeat_gaps(seconds, lambda: drive(server.bound_port, targets, rate, seconds, threads))
    gaps.sort()
    server.stop()
    return {"max_gap_ms": gaps[-1], "p99_gap_ms": gaps[int(len(gaps) * 0.99)], "ticks": len(gaps) + 1,
            "idle_max_gap_ms": max(idle_gaps), "load": load}


def med(values: list[float]) -> float:
    return round(statistics.median(values), 1)


def pick_users(engine, count: int, seed: int) -> list[str]:
    """Users with many profile entries and events (the heaviest to open), spread over the id range."""
    rows = engine.store.list_users(order_by="event_count", descending=True, limit=2000)
    rng = random.Random(seed)
    return [row.user_id for row in rng.sample(rows, count)]


def search_terms(engine, count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    ids = [row.user_id for row in engine.store.list_users(offset=rng.randrange(1000), limit=500)]
    terms = ["qq_1", "tg_", "zzz-no-such-user"]  # broad prefix, a tenth of the users, nothing
    for uid in rng.sample(ids, max(1, count - len(terms))):
        terms.append(rng.choice([uid, uid[3:9], uid[-5:]]))  # a full id, a middle part, an end
    return terms[:count] if count >= len(terms) else terms


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="10k users / 100k profile rows / 500k events")
    parser.add_argument("--repeat", type=int, default=5, help="repetitions of open, search and open-user")
    parser.add_argument("--stall-runs", type=int, default=3)
    parser.add_argument("--stall-seconds", type=float, default=10.0)
    parser.add_argument("--rate", type=float, default=500.0, help="memory_update requests per second")
    parser.add_argument("--threads", type=int, default=2, help="HTTP client threads driving the writes")
    parser.add_argument("--driver", choices=("thread", "process"), default="thread",
                        help="drive the writes from threads of this process (default) or from another process "
                             "(like a real bot host: the client does not compete for this process's GIL)")
    parser.add_argument("--remigrate", action="store_true", help="measure the one-time summary build again")
    parser.add_argument("--diagnose", action="store_true",
                        help="one more stall run with the Skills page's user picker detached from the store")
    args = parser.parse_args(argv)
    if args.quick:
        args.stall_seconds = min(args.stall_seconds, 5.0)
        args.stall_runs = min(args.stall_runs, 2)
        args.repeat = min(args.repeat, 3)
    sizes = QUICK if args.quick else FULL
    import PySide6
    if sys.version_info < (3, 12) and PySide6.__version__ == "6.12.0":
        print("warning: PySide6 6.12.0 drops a reference to None on every void call on Python < 3.12 and this run "
              "may abort with 'deallocating None' (tests/test_ui_pyside_refcount.py); use PySide6 6.11", flush=True)
    migrated, meta = prepare_data(sizes, args.remigrate)

    app = QApplication.instance() or QApplication(sys.argv[:1])
    from kiraos_desktop.ui.theme import apply_theme
    apply_theme(app)
    results: dict = {"pyside6": PySide6.__version__, "driver": args.driver, "sizes": dict(zip(("users", "profiles", "events"), sizes)),
                     "summary_build_ms": meta["summary_build_ms"], "summary_build_measured_at": meta["measured_at"],
                     "recall_index_build_ms": meta.get("recall_index_build_ms"),
                     "user_search_index_build_ms": meta.get("user_search_index_build_ms")}
    opens, searches, open_profile, open_full, stalls = [], [], [], [], []
    content, fallback = [], []
    with tempfile.TemporaryDirectory(prefix="kiraos-gui-bench-", dir=OUT) as scratch:
        work = Path(scratch) / "kiraos.db"
        print(f"copying {migrated.name} to a scratch file ...", flush=True)
        shutil.copyfile(migrated, work)
        data_dir = Path(scratch) / "data"
        for rep in range(args.repeat):
            engine, server, window, timing = open_window(app, work, data_dir)
            opens.append(timing)
            searches.extend(measure_search(app, window, search_terms(engine, 6, rep)))
            content.extend(measure_content_search(app, window, CONTENT_TERMS))
            if rep == 0:
                fallback.extend(measure_content_search(app, window, [FALLBACK_TERM]))
            profile, full = measure_open_user(app, window, pick_users(engine, 5, rep))
            open_profile.extend(profile)
            open_full.extend(full)
            close_window(app, engine, server, window)
            print(f"  round {rep + 1}/{args.repeat}: first page {timing['first_page']} ms "
                  f"(Engine.open {timing['engine_open']} ms, window {timing['window']} ms)", flush=True)
        for run in range(args.stall_runs):
            engine, server, window, _ = open_window(app, work, data_dir)
            stall = measure_stall(app, engine, server, window, args.stall_seconds, args.rate, args.threads,
                                  driver=args.driver)
            stalls.append(stall)
            close_window(app, engine, server, window)
            print(f"  stall run {run + 1}/{args.stall_runs}: max gap {stall['max_gap_ms']} ms, "
                  f"{stall['load']['rate']} writes/s, {stall['load']['errors']} errors", flush=True)
        if args.diagnose:
            engine, server, window, _ = open_window(app, work, data_dir)
            stall = measure_stall(app, engine, server, window, args.stall_seconds, args.rate, args.threads, True,
                                  args.driver)
            results["stall_without_skill_picker"] = stall
            close_window(app, engine, server, window)
            print(f"  diagnostic stall run, Skills user picker detached: max gap {stall['max_gap_ms']} ms, "
                  f"{stall['load']['rate']} writes/s", flush=True)

    results.update({
        "first_page_ms": med([t["first_page"] for t in opens]),
        "engine_open_ms": med([t["engine_open"] for t in opens]),
        "window_build_ms": med([t["window"] for t in opens]),
        "search_ms": med(searches), "search_max_ms": max(searches),
        "content_search_ms": med(content), "content_search_max_ms": max(content),
        "content_search_fallback_ms": fallback[0],
        "open_user_ms": med(open_profile), "open_user_full_ms": med(open_full),
        "open_user_full_max_ms": max(open_full),
        "stall_ms": med([s["max_gap_ms"] for s in stalls]),
        "stall_runs": stalls,
    })
    checks = [("first page shown after open", results["first_page_ms"], TARGETS_MS["first_page"]),
              ("search by user id", results["search_ms"], TARGETS_MS["search"]),
              ("search in keys, values and events", results["content_search_ms"], TARGETS_MS["content_search"]),
              ("open user (Profile tab)", results["open_user_ms"], TARGETS_MS["open_user"]),
              ("open user (Profile+Events+Context)", results["open_user_full_ms"], TARGETS_MS["open_user"]),
              (f"longest GUI stall at {args.rate:g} writes/s ({args.driver})", results["stall_ms"],
               TARGETS_MS["stall"])]
    results["pass"] = all(value < target for _, value, target in checks)
    n = results["sizes"]
    print(f"\nGUI benchmark, {n['users']:,} users / {n['profiles']:,} profile rows / {n['events']:,} events "
          f"(medians of {args.repeat} rounds; stall: median of {args.stall_runs} runs of {args.stall_seconds:g} s)")
    print(f"  one-time summary build on the unmigrated db: {results['summary_build_ms']:.0f} ms "
          f"(measured {results['summary_build_measured_at']}; --remigrate to measure again)")
    if results.get("recall_index_build_ms") is not None:
        print(f"  one-time recall index build of the cached db: {results['recall_index_build_ms']:.0f} ms")
    if results.get("user_search_index_build_ms") is not None:
        print(f"  one-time user search index build of the cached db: {results['user_search_index_build_ms']:.0f} ms")
    print(f"  Engine.open {results['engine_open_ms']} ms, window build {results['window_build_ms']} ms")
    for label, value, target in checks:
        print(f"  {label:<40} {value:>8.1f} ms   target < {target:.0f} ms   {'PASS' if value < target else 'FAIL'}")
    print(f"  search in keys, values and events: max {results['content_search_max_ms']} ms; one character "
          f"({FALLBACK_TERM}, the LIKE scan, no target): {results['content_search_fallback_ms']} ms")
    load = [s["load"] for s in stalls]
    print(f"  writes achieved: {', '.join(str(x['rate']) for x in load)} /s; request p99 "
          f"{', '.join(str(x['p99_ms']) for x in load)} ms; errors {sum(x['errors'] for x in load)}; "
          f"idle heartbeat max gap {max(s['idle_max_gap_ms'] for s in stalls)} ms")
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "gui_bench.json").write_text(json.dumps(results, indent=1, ensure_ascii=False))
    return 0 if results["pass"] else 1


if __name__ == "__main__":
    sys.exit(main())
