"""Command-line interface: the GUI by default, `serve`, `mcp` (stdio), and one-shot commands (argparse);
the command groups are the package's modules (skills, skill_files, skill_transfer, migrate, info)."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Sequence

from kiraos_desktop import __version__
from kiraos_desktop.core.exit_codes import EXIT_FAILURE, EXIT_OK, EXIT_USAGE


class UsageError(Exception):
    """Bad usage or bad input: printed as one line on stderr, exit code 2."""


def _common_parent() -> argparse.ArgumentParser:
    # default=SUPPRESS lets the same options appear before and after the subcommand without the
    # subcommand's unset copy overwriting a value given before it.
    parent = argparse.ArgumentParser(add_help=False)
    data = parent.add_argument_group("data options")
    data.add_argument("--data-dir", metavar="D", default=argparse.SUPPRESS,
                      help="data dir (default: the platform's user data dir, or $KIRAOS_DATA_DIR)")
    data.add_argument("--kira-data", metavar="D", default=argparse.SUPPRESS,
                      help="companion mode: a KiraOS plugin's data folder D (the one holding memory/ and "
                           "skills/), in any layout: 1.x/2.x (memory/kiraos.db) or 3.x (memory/entities/)")
    data.add_argument("--db", metavar="FILE", default=argparse.SUPPRESS, help="database file to use")
    data.add_argument("--skills-dir", metavar="D", default=argparse.SUPPRESS, help="skills folder to use")
    data.add_argument("--database-url", metavar="URL", default=argparse.SUPPRESS,
                      help="keep the memory in PostgreSQL: postgresql://USER[:PASSWORD]@HOST[:PORT]/DATABASE "
                           "(default: $KIRAOS_DATABASE_URL, else the setting database_url, else the data dir's "
                           "SQLite file; \"\" forces SQLite). Prefer the variable or PGPASSWORD/.pgpass for the "
                           "password: other users can see a command line")
    return parent


def _api_parent() -> argparse.ArgumentParser:
    parent = argparse.ArgumentParser(add_help=False)
    api = parent.add_argument_group("API options (override settings for this run)")
    api.add_argument("--host", default=argparse.SUPPRESS, help="address to bind (default 127.0.0.1)")
    api.add_argument("--port", type=int, default=argparse.SUPPRESS, help="port to bind (0: any free port)")
    auth = api.add_mutually_exclusive_group()
    auth.add_argument("--token", default=argparse.SUPPRESS, help="bearer token for this run")
    auth.add_argument("--no-auth", action="store_true", default=argparse.SUPPRESS,
                      help="serve without a token (only allowed on a loopback address)")
    return parent


def _window_size(text: str) -> tuple[int, int]:
    """`1024x700` -> (1024, 700); argparse turns the ValueError into a usage error (exit 2)."""
    width, sep, height = text.lower().partition("x")
    if not sep or not width.isdigit() or not height.isdigit() or not (320 <= int(width) <= 4000) \
            or not (240 <= int(height) <= 4000):
        raise argparse.ArgumentTypeError(f"expected WIDTHxHEIGHT such as 1024x700, got {text!r}")
    return int(width), int(height)


def build_parser() -> argparse.ArgumentParser:
    common, api = _common_parent(), _api_parent()
    parser = argparse.ArgumentParser(
        prog="kiraos-desktop", parents=[common, api],
        description="KiraOS Desktop: memory manager and skill workbench for chatbots.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    parser.add_argument("--screenshot", metavar="DIR", help="render every page to PNG files in DIR and exit")
    parser.add_argument("--screenshot-size", metavar="WxH", type=_window_size, default=(1280, 800),
                        help="window size of --screenshot (default 1280x800)")
    parser.add_argument("--language", choices=("system", "en", "zh_CN"), default=None,
                        help="language of the window for this run (default: the setting, else the system's)")
    parser.add_argument("--self-test", action="store_true", help="smoke test in a temporary data dir, then exit")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    sub.add_parser("serve", parents=[common, api], help="serve the API only, no window")
    sub.add_parser("mcp", parents=[common],
                   help="serve MCP over stdin/stdout (for hosts that launch a command, e.g. Claude Desktop)")

    p = sub.add_parser("context", parents=[common], help="print the memory block for users")
    p.add_argument("--user", action="append", required=True, metavar="U", help="user id (repeatable)")
    p.add_argument("--max-chars", type=int, metavar="N", help="character budget per user (0: unlimited)")
    p.add_argument("--query", metavar="TEXT",
                   help="the current message: the events relevant to it come first")
    p.add_argument("--json", action="store_true", help="print the API's JSON reply instead of the text")

    p = sub.add_parser("call", parents=[common], help="run a tool as the bot would")
    p.add_argument("tool", metavar="TOOL")
    p.add_argument("--user", required=True, metavar="U")
    p.add_argument("--json", dest="arguments", metavar="ARGS", default="{}", help="tool arguments as JSON")

    try:
        from kiraos_desktop.cli.skills import add_skills_parser
    except ImportError:  # the skills commands are optional while the package is being assembled
        add_skills_parser = None
    if add_skills_parser is not None:
        add_skills_parser(sub, [common])

    p = sub.add_parser("backup", parents=[common], help="copy the live database to FILE")
    p.add_argument("file", metavar="FILE")
    p = sub.add_parser("export", parents=[common], help="write users' memory to a JSON file")
    p.add_argument("--user", action="append", metavar="U", help="only this user (repeatable)")
    p.add_argument("file", metavar="FILE")
    p = sub.add_parser("import", parents=[common], help="merge a JSON export (all or nothing)")
    p.add_argument("file", metavar="FILE")
    p = sub.add_parser("migrate", parents=[common],
                       help="copy the data dir's SQLite memory into an empty PostgreSQL database, verified",
                       description="Copy the SQLite memory of the data dir (or of --kira-data, or the file --db) "
                                   "into the empty PostgreSQL database --to, then verify the counts. The source is "
                                   "always that SQLite database: $KIRAOS_DATABASE_URL and the setting database_url "
                                   "are not used, and --database-url, if given, must name the --to database.")
    p.add_argument("--to", required=True, metavar="URL",
                   help="the target: postgresql://USER[:PASSWORD]@HOST[:PORT]/DATABASE (it must be empty)")
    from kiraos_desktop.cli.info import add_info_parser

    add_info_parser(sub, [common])
    from kiraos_desktop.cli.entities import add_entity_parsers

    add_entity_parsers(sub, [common])
    from kiraos_desktop.cli.tree_edit import add_memory_parsers

    add_memory_parsers(sub, [common])
    p = sub.add_parser("token", parents=[common], help="print the API token")
    p.add_argument("--regenerate", action="store_true", help="make a new token first")
    return parser


def open_engine(args: argparse.Namespace):
    from kiraos_desktop.core.engine import Engine

    return Engine.open(data_dir=getattr(args, "data_dir", None), kira_data=getattr(args, "kira_data", None),
                       db=getattr(args, "db", None), skills_dir=getattr(args, "skills_dir", None),
                       database_url=getattr(args, "database_url", None))


def _context(args, engine) -> int:
    if args.max_chars is not None and args.max_chars < 0:
        raise UsageError("--max-chars must be 0 or more")
    result = engine.context.build(args.user, max_chars=args.max_chars, query=args.query)
    if args.json:
        print(json.dumps({"context": result.text, "users": result.users, "truncated": result.truncated},
                         ensure_ascii=False))
    elif result.text:
        print(result.text)
    # An empty block is no error (the bot gets nothing for that user), but say why it is empty.
    for block in result.per_user:
        if not block.text and engine.store.user_summary(block.user_id) is None:
            print(f"note: {block.user_id} has no memory (no profile entries, no events)", file=sys.stderr)
    return EXIT_OK


def _call(args, engine) -> int:
    from kiraos_desktop.core import jsontext
    from kiraos_desktop.core.tool_registry import ToolArgumentError, UnknownToolError

    try:
        arguments = jsontext.loads(args.arguments)
    except json.JSONDecodeError as exc:
        raise UsageError(f"--json is not valid JSON: {exc.msg} (column {exc.colno})") from None
    except jsontext.LoneSurrogateError as exc:
        raise UsageError(f"--json: {exc}") from None
    if not isinstance(arguments, dict):
        raise UsageError("--json must be a JSON object of tool arguments")
    try:
        result = engine.tools.call(args.tool, args.user, arguments, actor="cli")
    except UnknownToolError:
        raise UsageError(f"unknown tool {args.tool!r}; see `kiraos-desktop skills list`") from None
    except ToolArgumentError as exc:
        raise UsageError(f"invalid arguments for {args.tool}: {exc}") from None
    print(result.content)
    return EXIT_FAILURE if result.is_error else EXIT_OK


def _transfer(args, engine) -> int:
    from kiraos_desktop.core.transfer import export_import as transfer

    if args.command == "backup":
        if engine.database_url is not None:
            raise UsageError(f"backup copies a SQLite database file; the memory is in {engine.database_label}: "
                             "back it up with the server's tools (pg_dump), or use `export`")
        path = transfer.backup(engine.store, Path(args.file))
        print(f"backup written to {path}")
    elif args.command == "export":
        count = transfer.export_file(engine.store, Path(args.file), args.user)
        print(f"exported {count} user(s) to {args.file}")
    else:
        plan = transfer.read_import_file(Path(args.file))
        profiles, events = transfer.apply_import(engine.store, plan, actor="import")
        print(f"imported {len(plan.user_ids)} user(s): {profiles} profile entries, {events} new events")
        if plan.tagged_events and not engine.store.event_tags:
            print(f"note: {plan.tagged_events} event tag(s) not kept: this memory has no event tags "
                  "(KiraOS plugin 2.x data has them)", file=sys.stderr)
    return EXIT_OK


def _token(args, engine) -> int:
    print(engine.regenerate_token() if args.regenerate else engine.api_token)
    return EXIT_OK


def _start_logging(engine) -> None:
    import logging

    from kiraos_desktop.core.app_log import configure_logging

    configure_logging(engine.paths.logs_dir)
    logging.getLogger("kiraos_desktop").info("memory in %s", engine.database_label)  # redacted


def _starts_window(args) -> bool:
    """Whether this run is meant to show the window, and one can be shown here."""
    if args.command is not None or args.self_test or getattr(args, "screenshot", None):
        return False
    from kiraos_desktop.ui.app import missing_display

    return not missing_display()


def _window_language_and_data_dir(args) -> tuple[str, str]:
    """The language for a box shown before the window (the settings may be what failed) and the data dir."""
    from kiraos_desktop.core.paths import resolve_paths
    from kiraos_desktop.core.settings import SettingsError, load_settings

    paths = resolve_paths(data_dir=getattr(args, "data_dir", None))
    try:
        language = args.language or load_settings(paths.settings_file)[0].language
    except (SettingsError, OSError):
        language = "system"
    return language, str(paths.data_dir)


def _window_falls_back(args, exc: Exception) -> bool:
    """The window, on a database URL it cannot use: a dialog offers to quit (False) or to go on with
    the local SQLite data (True). Anything else: the window's start failed, and a box says so (a
    windowed build has no console for the line on stderr); False. Where no window can be shown: False."""
    from kiraos_desktop.core.storage.database_url import DatabaseUrlError

    if not _starts_window(args):
        return False
    language, data_dir = _window_language_and_data_dir(args)
    database = getattr(exc, "database_label", None)
    if database is None and not isinstance(exc, DatabaseUrlError):
        from kiraos_desktop.ui.startup_error import tell_cannot_start

        tell_cannot_start(str(exc), data_dir, language)
        return False
    from kiraos_desktop.ui.database_error import offer_local_data

    return offer_local_data(database or "", str(exc), data_dir, language)


def _run_command(args) -> int:
    from kiraos_desktop.core.memory.records import StoreError
    from kiraos_desktop.core.settings import SettingsError

    if args.self_test:
        from kiraos_desktop.selftest import run_self_test

        return run_self_test()
    if args.command == "info":  # reads without opening (and so changing) the memory
        from kiraos_desktop.cli.info import run_info

        try:
            return run_info(args)
        except (StoreError, OSError, ValueError) as exc:
            raise UsageError(str(exc)) from None
    if args.command in ("entities", "entity"):
        from kiraos_desktop.cli.entities import run_entities

        try:
            return run_entities(args)
        except (StoreError, OSError, ValueError) as exc:
            raise UsageError(str(exc)) from None
    if args.command in ("memory", "profile"):
        from kiraos_desktop.cli.tree_edit import run_memory

        try:
            return run_memory(args)
        except (StoreError, OSError, ValueError) as exc:
            raise UsageError(str(exc)) from None
    if args.command == "migrate":
        from kiraos_desktop.cli.migrate import run_migrate

        return run_migrate(args)
    if args.command == "skills" and getattr(args, "dir", None) and Path(args.dir).is_dir():
        from kiraos_desktop.cli.skills import run_skills

        return run_skills(args, None)  # linting a folder needs no data dir (a skill's name does)
    try:
        engine = open_engine(args)
    except (SettingsError, StoreError, ValueError, OSError) as exc:  # StoreError: e.g. a newer schema
        if not _window_falls_back(args, exc):
            raise UsageError(str(exc)) from None
        args.database_url = ""  # this session on the data dir's SQLite database
        try:
            engine = open_engine(args)
        except (SettingsError, StoreError, ValueError, OSError) as again:
            if _starts_window(args):
                from kiraos_desktop.ui.startup_error import tell_cannot_start

                language, data_dir = _window_language_and_data_dir(args)
                tell_cannot_start(str(again), data_dir, language)
            raise UsageError(str(again)) from None
    try:
        for warning in engine.settings_warnings:
            print(f"warning: {warning}", file=sys.stderr)
        if args.command == "serve":
            from kiraos_desktop.api.server import serve_forever

            # Only the long-running modes (this and the window) keep a log file; one-shot commands do not.
            _start_logging(engine)
            return serve_forever(engine, args)
        if args.command == "mcp":
            from kiraos_desktop.api.mcp.stdio import serve_stdio

            _start_logging(engine)  # stdout carries the protocol: logs never go there
            return serve_stdio(engine)
        if args.command is None:
            from kiraos_desktop.ui.app import run_gui

            return run_gui(engine, args)
        handlers = {"context": _context, "call": _call, "backup": _transfer, "export": _transfer,
                    "import": _transfer, "token": _token}
        if args.command == "skills":
            from kiraos_desktop.cli.skills import run_skills

            return run_skills(args, engine)
        try:
            return handlers[args.command](args, engine)
        except StoreError as exc:
            raise UsageError(str(exc)) from None
    finally:
        engine.close()


def _check_user_text(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """User ids and skill arguments must be text (bytes that are not UTF-8 arrive as lone surrogates)."""
    from kiraos_desktop.core.jsontext import lone_surrogate_path

    for name, option in (("user", "--user"), ("skill_user", "--user"), ("skill_args", "--arg")):
        if lone_surrogate_path(getattr(args, name, None)) is not None:
            parser.error(f"{option} is not valid text (it holds bytes that are not UTF-8)")


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "kira_data", None) and getattr(args, "data_dir", None):
        parser.error("use either --data-dir or --kira-data, not both")
    _check_user_text(parser, args)
    try:
        return _run_command(args)
    except UsageError as exc:
        print(f"kiraos-desktop: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        return EXIT_FAILURE
    except Exception as exc:  # last resort: one clear line, not a traceback, for the user
        print(f"kiraos-desktop: failed: {type(exc).__name__}: {exc}", file=sys.stderr)
        return EXIT_FAILURE


if __name__ == "__main__":
    sys.exit(main())
