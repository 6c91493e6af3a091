"""API page: server state, URL, token (masked, copy, regenerate), request counters, example requests, host setup."""
from __future__ import annotations

import json
import logging
import shlex
from typing import Any, Callable
from urllib.parse import quote

from PySide6.QtCore import QEvent, Qt, QTimer, Signal, Slot
from PySide6.QtGui import QFontDatabase, QGuiApplication
from PySide6.QtWidgets import (
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from kiraos_desktop.core.host_configs import data_arguments, stdio_command
from kiraos_desktop.ui.connect_hosts import ConnectHostsBox
from kiraos_desktop.core.paths import readable_by_others
from kiraos_desktop.ui.empty_state import EmptyState
from kiraos_desktop.ui.prompts import prompts
from kiraos_desktop.ui.server_state import run_server_operation
from kiraos_desktop.ui.tasks import TaskRunner
from kiraos_desktop.ui.route_counters import RouteCountersModel

log = logging.getLogger(__name__)

STATES = ("starting", "running", "stopped", "error")
STATE_COLORS = {"starting": "#c98a00", "running": "#1e8e3e", "stopped": "#80868b", "error": "#d93025"}
EXAMPLE_USER = "user_123"
MASK = "•" * 12



def example_requests(url: str, token: str, user_id: str = EXAMPLE_USER) -> str:
    """Two ready-to-paste curl commands (POSIX shell): read the context, write one memory."""
    base = url.rstrip("/")
    auth = shlex.quote(f"Authorization: Bearer {token}")
    body = json.dumps({"user_id": user_id, "arguments": {"operations": [
        {"op": "set", "key": "城市", "value": "北京", "confidence": 0.9}]}},
        ensure_ascii=False)
    return (
        "# 对话前取记忆块 / memory block before an LLM call\n"
        f"curl -s -H {auth} \\\n  {shlex.quote(base + '/v1/context?user_id=' + quote(user_id, safe=''))}\n\n"
        "# 执行 memory_update 工具 / run the memory_update tool\n"
        f"curl -s -X POST -H {auth} -H 'Content-Type: application/json' \\\n"
        f"  -d {shlex.quote(body)} \\\n  {shlex.quote(base + '/v1/tools/memory_update')}\n"
    )


class ApiPage(QWidget):
    """The API page of the main window. Construct with `ApiPage(server, engine, parent)`.

    `server` is an `ApiServer` (start/stop/restart, running, url, counters(),
    add_state_listener); `engine` gives the token (`api_token`, `regenerate_token()`), the
    settings listener (`on_settings_changed`) and one user id for the example (`store`). The
    server's state listener may run on any thread; it only emits `state_received`, which is
    delivered on the GUI thread. Call `dispose()` (or delete the widget) to unsubscribe.
    Start, stop and restart run on a short-lived thread so the window never waits for a bind.
    """

    state_received = Signal(str, str)  # (state, detail), queued to the GUI thread
    settings_received = Signal()
    operation_failed = Signal(str)

    def __init__(self, server, engine, parent: QWidget | None = None):
        super().__init__(parent)
        self._server = server
        self._engine = engine
        self._state = "stopped"
        self._detail = ""
        self._token_shown = False
        self._example_user = EXAMPLE_USER
        self._pending_token: str | None = None  # regenerated while stopped
        self._build()
        self.state_received.connect(self._on_server_state, Qt.ConnectionType.QueuedConnection)
        self.settings_received.connect(self._on_engine_settings, Qt.ConnectionType.QueuedConnection)
        self.operation_failed.connect(self._on_operation_failed, Qt.ConnectionType.QueuedConnection)
        self._unsubscribers = [server.add_state_listener(self._listener),
                               engine.on_settings_changed(lambda old, new: self._emit("settings_received"))]
        unsubscribers = self._unsubscribers
        self.destroyed.connect(lambda *_: _call_all(unsubscribers))
        self._timer = QTimer(self)
        self._timer.setInterval(1000)
        self._timer.timeout.connect(self._on_timer_timeout)
        self._pick_example_user()
        self._set_state(self._initial_state(), "")
        self._refresh_token()
        self.refresh_counters()

    # ---- layout --------------------------------------------------------------------------

    def _build(self) -> None:
        mono = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        layout = QVBoxLayout(self)
        title = QLabel(self.tr("Loopback API"))
        title.setObjectName("pageTitle")
        font = title.font()
        font.setPointSizeF(font.pointSizeF() * 1.4)
        font.setBold(True)
        title.setFont(font)
        layout.addWidget(title)

        server_box = QGroupBox(self.tr("Server"))
        form = QFormLayout(server_box)
        state_row = QHBoxLayout()
        self._state_dot = QLabel("●")
        self._state_label = QLabel()
        self._state_label.setObjectName("apiState")
        self._state_label.setWordWrap(True)
        self._state_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self._start = QPushButton(self.tr("Start"))
        self._start.setObjectName("startServer")
        self._start.clicked.connect(self._on_start_clicked)
        self._stop = QPushButton(self.tr("Stop"))
        self._stop.setObjectName("stopServer")
        self._stop.clicked.connect(self._on_stop_clicked)
        state_row.addWidget(self._state_dot)
        state_row.addWidget(self._state_label, 1)
        state_row.addWidget(self._start)
        state_row.addWidget(self._stop)
        form.addRow(self.tr("State:"), state_row)

        self._url = QLabel()
        self._url.setObjectName("apiUrl")
        self._url.setFont(mono)
        self._url.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        form.addRow(self.tr("URL:"), self._url)

        token_row = QHBoxLayout()
        self._token = QLineEdit()
        self._token.setObjectName("apiToken")
        self._token.setReadOnly(True)
        self._token.setFocusPolicy(Qt.FocusPolicy.ClickFocus)
        self._token.setFont(mono)
        self._token.setEchoMode(QLineEdit.EchoMode.Password)
        self._show = QPushButton(self.tr("Show"))
        self._show.setObjectName("showToken")
        self._show.setCheckable(True)
        self._show.toggled.connect(self._on_show_toggled)
        copy = QPushButton(self.tr("Copy"))
        copy.setObjectName("copyToken")
        copy.clicked.connect(self._on_copy_clicked)
        regenerate = QPushButton(self.tr("Regenerate…"))
        regenerate.setObjectName("regenerateToken")
        regenerate.clicked.connect(self._on_regenerate_clicked)
        token_row.addWidget(self._token, 1)
        for button in (self._show, copy, regenerate):
            token_row.addWidget(button)
        form.addRow(self.tr("Token:"), token_row)

        self._modes = QLabel()
        self._modes.setObjectName("dataFileModes")
        self._modes.setWordWrap(True)
        self._modes.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        form.addRow(self.tr("Memory files:"), self._modes)
        self._layout = QLabel()
        self._layout.setObjectName("pluginLayout")
        self._layout.setWordWrap(True)
        form.addRow(self.tr("KiraOS data:"), self._layout)
        self._modes_form = form
        layout.addWidget(server_box)

        self._hosts = ConnectHostsBox()  # what a newcomer needs first, right under the URL and token
        layout.addWidget(self._hosts)

        counters_box = QGroupBox(self.tr("Requests since start"))
        counters = QVBoxLayout(counters_box)
        self._totals = QLabel()
        self._totals.setObjectName("apiTotals")
        counters.addWidget(self._totals)
        self._routes = RouteCountersModel(self)
        view = QTableView()
        view.setObjectName("routeCounters")
        view.setTabKeyNavigation(False)
        view.setModel(self._routes)
        view.verticalHeader().setVisible(False)
        view.verticalHeader().setDefaultSectionSize(view.fontMetrics().height() + 8)
        view.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        view.horizontalHeader().setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        view.setSelectionMode(QTableView.SelectionMode.NoSelection)
        view.setMinimumHeight(120)
        self._routes_empty = EmptyState(view)
        counters.addWidget(view)
        layout.addWidget(counters_box, 1)

        example_box = QGroupBox(self.tr("Example requests"))
        example = QVBoxLayout(example_box)
        self._example = QPlainTextEdit()
        self._example.setObjectName("apiExample")
        self._example.setReadOnly(True)
        self._example.setFont(mono)
        self._example.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self._example.setMinimumHeight(170)
        example.addWidget(self._example)
        copy_example = QPushButton(self.tr("Copy example with token"))
        copy_example.setObjectName("copyExample")
        copy_example.clicked.connect(self._on_copy_example_clicked)
        row = QHBoxLayout()
        row.addStretch(1)
        row.addWidget(copy_example)
        example.addLayout(row)
        layout.addWidget(example_box, 1)

    # ---- public --------------------------------------------------------------------------

    def state(self) -> tuple[str, str]:
        """The state shown, with its detail (error message)."""
        return self._state, self._detail

    def dispose(self) -> None:
        """Stop listening to the server and the engine (idempotent)."""
        self._timer.stop()
        _call_all(self._unsubscribers)

    def _show_layout(self, paths) -> None:
        """Which KiraOS plugin version's data is open (companion mode only): the bot host's writes
        follow that version's rules (docs/plugin-versions.md)."""
        store = getattr(self._engine, "store", None)
        layout = getattr(store, "layout", None)
        shown = bool(paths is not None and paths.companion and layout is not None)
        self._modes_form.setRowVisible(self._layout, shown)
        if shown:
            self._layout.setText(self.tr("KiraOS {layout} (written by plugin {version})").format(
                layout=layout.name, version=layout.plugin_versions))

    def refresh_file_modes(self) -> None:
        """The line with the database's permissions (POSIX), flagged when other users can read it; none
        for a PostgreSQL database (its server guards it)."""
        paths = getattr(self._engine, "paths", None)
        self._show_layout(paths)
        local_file = self._engine.store.local_file is not None
        modes = paths.database_modes() if paths is not None and local_file else []
        self._modes_form.setRowVisible(self._modes, bool(modes))
        if not modes:
            return
        folder = paths.db_path.parent
        listed = ", ".join(f"{path.name}/ {mode:04o}" if path == folder else f"{path.name} {mode:04o}"
                           for path, mode in modes)
        self._modes.setToolTip(str(folder))
        if any(readable_by_others(mode) for _, mode in modes):
            self._modes.setText(self.tr("{files}: other users of this computer can read your memories. "
                                        "Make them private: chmod 700 the folder, chmod 600 the files.").format(
                files=listed))
            self._modes.setStyleSheet("color: #c77700; font-weight: bold;")
        else:
            self._modes.setText(self.tr("{files} (private to you)").format(files=listed))
            self._modes.setStyleSheet("")

    def refresh_counters(self) -> None:
        try:
            counters = self._server.counters()
        except Exception as exc:  # the page must keep working if the server object is in a bad state
            log.warning("reading API counters failed: %s", exc)
            return
        self._totals.setText(self.tr("Total: {0}    Errors: {1}").format(
            f"{int(counters.get('total', 0)):,}", f"{int(counters.get('errors', 0)):,}"))
        self._routes.set_counts(counters.get("by_route", {}) or {})
        self._routes_empty.update_state(self._routes.rowCount(), self.tr(
            "No requests yet. Bot hosts call the URL above with the token; try the examples above, under "
            "Connect a host."))

    def example_text(self, reveal: bool | None = None) -> str:
        """The example requests; the token is masked unless revealed."""
        shown = self._token_shown if reveal is None else reveal
        token = self.current_token()
        if token is None:
            return example_requests(self._current_url(), "", self._example_user).replace(
                " -H 'Authorization: Bearer '", "")
        token = token if shown else MASK
        return example_requests(self._current_url(), token, self._example_user)

    # ---- state ---------------------------------------------------------------------------

    def _listener(self, state: str, detail: Any = "") -> None:
        """Called by the server on any thread."""
        self._emit("state_received", str(state), "" if detail is None else str(detail))

    def _emit(self, signal_name: str, *args) -> None:
        try:
            getattr(self, signal_name).emit(*args)
        except RuntimeError:  # the page was deleted while a server thread was reporting
            pass

    def _initial_state(self) -> str:
        state = getattr(self._server, "state", None)
        if callable(state):
            state = state()
        if state in STATES:
            return state
        return "running" if getattr(self._server, "running", False) else "stopped"

    def _current_url(self) -> str:
        url = getattr(self._server, "url", None)
        if url:
            return str(url)
        settings = self._engine.settings
        host = f"[{settings.api_host}]" if ":" in settings.api_host else settings.api_host
        return f"http://{host}:{settings.api_port}"

    def _set_state(self, state: str, detail: str) -> None:
        self._state, self._detail = state, detail
        names = {"starting": self.tr("Starting…"), "running": self.tr("Running"),
                 "stopped": self.tr("Stopped"), "error": self.tr("Error")}
        text = names.get(state, state)
        if detail and state == "error":  # other states carry the URL, shown on its own row
            text = f"{text} — {detail}"
        self._state_label.setText(text)
        self._state_dot.setStyleSheet(f"color: {STATE_COLORS.get(state, '#80868b')};")
        self._start.setEnabled(state in ("stopped", "error"))
        self._stop.setEnabled(state in ("running", "starting"))
        url = self._current_url()
        if state == "running":
            self._url.setText(url)
        elif url.endswith(":0"):
            self._url.setText(self.tr("{0} (not serving; a free port is chosen at start)").format(url[:-2]))
        else:
            self._url.setText(self.tr("{0} (not serving)").format(url))
        self._example.setPlainText(self.example_text())
        self._update_hosts()
        self.refresh_file_modes()  # a few stat() calls: a start or stop is when someone looks

    def _update_hosts(self) -> None:
        try:
            command = stdio_command() + data_arguments(self._engine.paths, self._engine.settings.skills_dir)
        except Exception as exc:  # an engine without paths (a test double): the stdio snippet runs bare
            log.debug("no data dir for the stdio snippet: %s", exc)
            command = stdio_command()
        self._hosts.set_connection(self._current_url(), self.current_token(), command, self._example_user)

    @Slot(str, str)
    def _on_server_state(self, state: str, detail: str) -> None:
        self._refresh_token()  # a restart may have changed the token
        self._set_state(state, detail)
        self.refresh_counters()

    @Slot()
    def _on_engine_settings(self) -> None:
        self._refresh_token()
        self._set_state(self._state, self._detail)

    def current_token(self) -> str | None:
        """The token bot hosts must send: the server's own (it may come from --token), the one
        regenerated while the server was stopped, or the engine's; None when auth is off (--no-auth)."""
        if self._pending_token is not None:
            return self._pending_token
        token = getattr(self._server, "token", "")
        if token is None:
            return None
        return token or self._engine.api_token

    def _refresh_token(self) -> None:
        token = self.current_token()
        self._token.setText(token or "")
        self._token.setPlaceholderText("" if token else self.tr("No token required (started with --no-auth)"))
        self._example.setPlainText(self.example_text())
        self._update_hosts()

    def _pick_example_user(self) -> None:
        try:
            users = self._engine.store.list_users(limit=1, order_by="last_activity", descending=True)
        except Exception:  # the example falls back to a made-up id
            users = []
        if users:
            self._example_user = users[0].user_id

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt override)
        """A language switch: the URL line, the memory files line and the counters are texts made from
        values, which the swap of texts set once cannot reach; they are made again."""
        super().changeEvent(event)
        if event.type() == QEvent.Type.LanguageChange and hasattr(self, "_timer"):  # built
            self._set_state(self._state, self._detail)
            self.refresh_counters()

    # ---- visibility: counters are polled only while the page is shown --------------------

    def showEvent(self, event) -> None:
        super().showEvent(event)
        self.refresh_counters()
        self._timer.start()

    def hideEvent(self, event) -> None:
        self._timer.stop()
        super().hideEvent(event)

    @Slot()
    def _on_timer_timeout(self) -> None:
        self.refresh_counters()

    # ---- buttons -------------------------------------------------------------------------

    def _in_background(self, name: str, work: Callable[[], None]) -> TaskRunner:
        return run_server_operation(name, work, lambda message: self._emit("operation_failed", message))

    @Slot()
    def _on_start_clicked(self) -> None:
        self._set_state("starting", "")
        token, self._pending_token = self._pending_token, None
        if token is None:
            self._in_background("start", self._server.start)
        else:
            self._in_background("start", lambda: self._server.restart(token=token))

    @Slot()
    def _on_stop_clicked(self) -> None:
        self._in_background("stop", self._server.stop)

    @Slot(str)
    def _on_operation_failed(self, message: str) -> None:
        self._set_state("error", message)

    @Slot(bool)
    def _on_show_toggled(self, shown: bool) -> None:
        self._token_shown = shown
        self._token.setEchoMode(QLineEdit.EchoMode.Normal if shown else QLineEdit.EchoMode.Password)
        self._show.setText(self.tr("Hide") if shown else self.tr("Show"))
        self._example.setPlainText(self.example_text())
        self._hosts.set_shown(shown)

    @Slot()
    def _on_copy_clicked(self) -> None:
        QGuiApplication.clipboard().setText(self.current_token() or "")

    @Slot()
    def _on_copy_example_clicked(self) -> None:
        QGuiApplication.clipboard().setText(self.example_text(reveal=True))

    @Slot()
    def _on_regenerate_clicked(self) -> None:
        if not prompts.confirm(self, self.tr("Regenerate the API token?"),
                               self.tr("Bot hosts that use the current token will be refused until they "
                                       "are given the new one. The server restarts with the new token."),
                               self.tr("Regenerate")):
            return
        token = self._engine.regenerate_token()
        if self._server.running:
            self._set_state("starting", "")
            self._in_background("restart", lambda: self._server.restart(token=token))
            self._token.setText(token)  # the restart's state reports then read it from the server
        else:
            self._pending_token = token  # used by the next Start
            self._refresh_token()


def _call_all(functions: list[Callable[[], None]]) -> None:
    while functions:
        try:
            functions.pop()()
        except (ValueError, RuntimeError):  # already unsubscribed
            pass
