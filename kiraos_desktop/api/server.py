"""The API server: uvicorn in a daemon thread (GUI) or in the foreground (`kiraos-desktop serve`)."""
from __future__ import annotations

import errno
import gc
import logging
import os
import signal
import socket
import sys
import threading
import time
from typing import Callable

from kiraos_desktop.api.app import create_app
from kiraos_desktop.api.counters import RequestCounters
from kiraos_desktop.api.prompt_server import prompt_server
from kiraos_desktop.api.protocol import GuardedHttpProtocol
from kiraos_desktop.api.security import is_loopback
from kiraos_desktop.core.exit_codes import EXIT_FAILURE, EXIT_OK, EXIT_USAGE
from kiraos_desktop.core.writes.workers import WRITER_THREAD_PREFIX

log = logging.getLogger(__name__)

StateListener = Callable[[str, str], None]
_UNCHANGED = object()
#: How long a stopping server lets the writes under way finish before it answers their requests 503.
STOP_GRACE_S = 1.0
#: `serve` ends this long after SIGTERM or Ctrl+C at the latest, whatever its writers are doing (a
#: write held up by another process's lock would otherwise keep the process alive for its wait).
STOP_BUDGET_S = 4.0
_ADDR_IN_USE = {errno.EADDRINUSE, 10048}  # 10048: WSAEADDRINUSE
_ACCESS = {errno.EACCES, 10013}  # 10013: WSAEACCES (Windows reports a busy port this way too)


class ApiStartError(RuntimeError):
    """The server could not start; the message says why and what to change."""


def check_options(host: str, port: int, token: str | None) -> None:
    if not isinstance(host, str) or not host.strip():
        raise ValueError("the API host must not be empty")
    if isinstance(port, bool) or not isinstance(port, int) or not 0 <= port <= 65535:
        raise ValueError(f"the API port must be a whole number from 0 to 65535, got {port!r}")
    if token is None and not is_loopback(host):
        raise ValueError(f"serving without a token (--no-auth) is only allowed on a loopback address "
                         f"(127.0.0.1, localhost or ::1), not on {host}; remove --no-auth or bind to 127.0.0.1")
    if token is not None and (not token or any(c.isspace() for c in token)):
        raise ValueError("the API token must be a non-empty text without spaces")


def bind_socket(host: str, port: int) -> socket.socket:
    """A listening socket, or ApiStartError with a message a user can act on."""
    try:
        family, kind, proto, _, address = socket.getaddrinfo(
            host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)[0]
    except (socket.gaierror, UnicodeError) as exc:
        raise ApiStartError(f"cannot use {host!r} as the API host ({exc}); choose another host in Settings") from None
    sock = socket.socket(family, kind, proto)
    try:
        if os.name == "nt":  # SO_REUSEADDR would let Windows bind a port another program listens on
            if hasattr(socket, "SO_EXCLUSIVEADDRUSE"):
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_EXCLUSIVEADDRUSE, 1)
        else:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # no wait after a restart (TIME_WAIT)
        sock.bind(address)
        sock.listen(2048)
    except OSError as exc:
        sock.close()
        code = exc.errno if exc.errno is not None else getattr(exc, "winerror", None)
        if code in _ADDR_IN_USE or (os.name == "nt" and code in _ACCESS):
            message = f"port {port} on {host} is already in use; choose another port in Settings"
        elif code in _ACCESS:
            message = f"no permission to listen on port {port} on {host}; choose a port above 1024 in Settings"
        elif code == errno.EADDRNOTAVAIL:
            message = f"{host} is not an address of this machine; choose another host in Settings"
        else:
            message = f"cannot listen on {host}:{port}: {exc.strerror or exc}"
        raise ApiStartError(message) from None
    sock.setblocking(False)
    return sock


def url_for(host: str, port: int) -> str:
    name = host.strip()
    if ":" in name and not name.startswith("["):
        name = f"[{name}]"
    return f"http://{name}:{port}"


class ApiServer:
    """Start, stop and restart the API on one engine; thread-safe; reports state to listeners."""

    def __init__(self, engine, host: str, port: int, token: str | None):
        check_options(host, port, token)
        self._engine = engine
        self.host = host
        self.port = port
        self._token = token
        self._counters = RequestCounters()
        self._lifecycle = threading.RLock()
        self._listeners: list[StateListener] = []
        self._server = None
        self._app = None
        self._thread: threading.Thread | None = None
        self._stopping = False
        self.bound_port: int | None = None

    # ---- state -----------------------------------------------------------------------

    @property
    def running(self) -> bool:
        thread = self._thread
        return self._server is not None and thread is not None and thread.is_alive()

    @property
    def url(self) -> str:
        return url_for(self.host, self.bound_port if self.bound_port is not None else self.port)

    @property
    def token(self) -> str | None:
        return self._token

    def counters(self) -> dict:
        return self._counters.snapshot()

    def add_state_listener(self, cb: StateListener) -> Callable[[], None]:
        """cb(state, detail), state in starting|running|stopped|error, called from any thread."""
        self._listeners.append(cb)

        def remove() -> None:
            if cb in self._listeners:
                self._listeners.remove(cb)

        return remove

    def _emit(self, state: str, detail: str) -> None:
        for cb in list(self._listeners):
            try:
                cb(state, detail)
            except Exception:  # a faulty listener must not break the server's lifecycle
                log.exception("API state listener failed")

    # ---- lifecycle -------------------------------------------------------------------

    def start(self, timeout: float = 10) -> None:
        """Bind, then serve from a daemon thread; returns once requests are accepted."""
        import uvicorn

        with self._lifecycle:
            if self.running:
                return
            self._emit("starting", url_for(self.host, self.port))
            try:
                sock = bind_socket(self.host, self.port)
            except ApiStartError as exc:
                self._emit("error", str(exc))
                raise
            port = sock.getsockname()[1]
            app = create_app(self._engine, self._token, extra_hosts=(self.host,), counters=self._counters)
            config = uvicorn.Config(app, log_config=None, access_log=False, lifespan="on", ws="none",
                                    proxy_headers=False, server_header=False, timeout_graceful_shutdown=3,
                                    http=GuardedHttpProtocol or "auto")
            server = prompt_server(config)
            failure: list[BaseException] = []
            thread = threading.Thread(target=self._run, args=(server, sock, failure), name="kiraos-api",
                                      daemon=True)
            self._stopping = False
            thread.start()
            deadline = time.monotonic() + timeout
            while not server.started and thread.is_alive() and time.monotonic() < deadline:
                time.sleep(0.005)
            if not server.started:
                server.should_exit = True
                thread.join(timeout=2)
                sock.close()
                app.workers.close()
                reason = f": {failure[0]}" if failure else (" in time" if thread.is_alive() else "")
                message = f"the API server on {url_for(self.host, port)} did not start{reason}"
                self._emit("error", message)
                raise ApiStartError(message)
            self._server, self._thread, self._app, self.bound_port = server, thread, app, port
        self._engine.start_watching()  # other processes' writes reach the context cache within a second
        self._emit("running", self.url)

    def _run(self, server, sock: socket.socket, failure: list) -> None:
        try:
            server.run(sockets=[sock])
        except BaseException as exc:  # uvicorn ends a failed startup with SystemExit
            failure.append(exc)
            log.exception("the API server stopped with an error")
        finally:
            try:
                sock.close()
            except OSError:
                pass
        if server.started and not self._stopping:
            self._emit("error", f"the API server stopped unexpectedly{': ' + str(failure[0]) if failure else ''}")

    def stop(self, timeout: float = 5) -> None:
        """Finish requests in flight, close connections and the port; safe to call twice."""
        with self._lifecycle:
            server, thread = self._server, self._thread
            if server is None or thread is None:
                return
            self._stopping = True
            self._app.mcp.close_sessions_from_thread()  # open MCP event streams would delay the stop
            self._app.workers.close(STOP_GRACE_S)  # a write another process holds up would delay it too
            server.should_exit = True
            server.wake()
            thread.join(timeout)
            if thread.is_alive():
                server.force_exit = True
                thread.join(2)
            self._server = self._thread = self._app = None
            self.bound_port = None
        self._emit("stopped", url_for(self.host, self.port))

    def restart(self, host: str | None = None, port: int | None = None, token=_UNCHANGED) -> None:
        """Stop, apply new options (checked first, so bad ones leave the server as it was), start."""
        new_host = self.host if host is None else host
        new_port = self.port if port is None else port
        new_token = self._token if token is _UNCHANGED else token
        check_options(new_host, new_port, new_token)
        with self._lifecycle:
            self.stop()
            self.host, self.port, self._token = new_host, new_port, new_token
            self.start()


def resolve_server_options(engine, args) -> tuple[str, int, str | None]:
    """Host, port and token from the settings, overridden by --host/--port/--token/--no-auth."""
    settings = engine.settings
    host = getattr(args, "host", None) or settings.api_host
    port = getattr(args, "port", None)
    port = settings.api_port if port is None else port
    token = getattr(args, "token", None)
    if getattr(args, "no_auth", None):
        token = None
    elif token is None:
        token = engine.api_token
    check_options(host, port, token)
    return host, port, token


def _say(text: str) -> None:
    if sys.stderr is not None:
        print(text, file=sys.stderr, flush=True)


def _token_source(engine, args) -> str:
    if getattr(args, "no_auth", None):
        return "no token required (--no-auth)"
    if getattr(args, "token", None):
        return "bearer token: the one given with --token"
    if engine.settings.api_token:
        return f"bearer token: api_token in {engine.paths.settings_file}"
    return f"bearer token: in {engine.paths.token_file} (`kiraos-desktop token` prints it)"


def _end_within(seconds: float) -> threading.Timer:
    """End the process `seconds` from now if it has not ended by then (a daemon timer): a writer thread
    waiting on another process's lock is abandoned (its store undoes or finishes what it left when it
    is opened next), never waited for."""
    def abandon() -> None:
        log.warning("stopping took over %.0f s: the writes still under way are abandoned", seconds)
        logging.shutdown()
        os._exit(EXIT_OK)

    timer = threading.Timer(seconds, abandon)
    timer.daemon = True
    timer.start()
    return timer


def _writers_ended(deadline: float) -> bool:
    """Whether every writer thread of the API ended by `deadline` (time.monotonic()); idle ones end at
    once after the stop. Only a write still under way then needs the process ended for it."""
    for thread in threading.enumerate():
        if thread.name.startswith(WRITER_THREAD_PREFIX):
            thread.join(max(0.0, deadline - time.monotonic()))
            if thread.is_alive():
                return False
    return True


def serve_forever(engine, args) -> int:
    """The `serve` command: run the API in the foreground until SIGINT or SIGTERM."""
    try:
        host, port, token = resolve_server_options(engine, args)
        server = ApiServer(engine, host, port, token)
    except ValueError as exc:
        _say(f"kiraos-desktop: error: {exc}")
        return EXIT_USAGE
    stop = threading.Event()
    signals = [signal.SIGINT, signal.SIGTERM] + ([signal.SIGBREAK] if hasattr(signal, "SIGBREAK") else [])
    previous = {}
    if threading.current_thread() is threading.main_thread():
        for sig in signals:
            previous[sig] = signal.signal(sig, lambda *_: stop.set())
    try:
        try:
            server.start()
        except ApiStartError as exc:
            _say(f"kiraos-desktop: error: {exc}")
            return EXIT_FAILURE
        engine.start_watching()
        # What exists now (modules, the engine, the app) lives as long as the process: kept out of
        # the collector's full passes, each of which stalls every request in flight.
        gc.freeze()
        _say(f"KiraOS Desktop API on {server.url} ({_token_source(engine, args)}); memory in "
             f"{engine.database_label}; Ctrl+C stops it")
        crashed = False
        while not stop.wait(0.25):
            if not server.running:
                crashed = True
                break
        ending = _end_within(STOP_BUDGET_S)
        server.stop()
        if _writers_ended(time.monotonic() + STOP_BUDGET_S / 2):
            ending.cancel()  # nothing held up: the process ends by itself (or, run in process, goes on)
        if crashed:
            _say("kiraos-desktop: error: the API server stopped unexpectedly; see the log")
            return EXIT_FAILURE
        return EXIT_OK
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
