"""The API page's "Connect a host" box: one tab per chatbot host with its snippet and a Copy button."""
from __future__ import annotations

from PySide6.QtCore import QEvent
from PySide6.QtGui import QFontDatabase, QGuiApplication
from PySide6.QtWidgets import (
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from kiraos_desktop.core.host_configs import HOSTS, claude_desktop_config_path, host_snippets

MASK = "•" * 12


class ConnectHostsBox(QGroupBox):
    """Shows each host's configuration with the token masked unless `shown`; Copy copies it with
    the real token. Update with `set_connection(url, token, command, user_id)` and `set_shown()`."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(self.tr("Connect a host"), parent)
        self.setObjectName("connectHosts")
        self._url, self._token, self._command, self._user = "", None, [], ""
        self._shown = False
        self._texts: dict[str, QPlainTextEdit] = {}
        self._hints: dict[str, QLabel] = {}
        mono = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        layout = QVBoxLayout(self)
        self._tabs = QTabWidget()
        self._tabs.setObjectName("hostTabs")
        titles = {"claude_desktop": "Claude Desktop", "cursor": "Cursor", "vscode": "VS Code",
                  "claude_code": "Claude Code", "curl": "curl"}
        for host in HOSTS:
            page = QWidget()
            column = QVBoxLayout(page)
            hint = QLabel(self._hint(host))
            hint.setWordWrap(True)
            hint.setObjectName(f"hint_{host}")
            column.addWidget(hint)
            self._hints[host] = hint
            text = QPlainTextEdit()
            text.setObjectName(f"snippet_{host}")
            text.setReadOnly(True)
            text.setFont(mono)
            text.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
            text.setMinimumHeight(text.fontMetrics().lineSpacing() * 9 + 12)  # a whole JSON snippet
            column.addWidget(text, 1)
            copy = QPushButton(self.tr("Copy"))
            copy.setObjectName(f"copy_{host}")
            copy.clicked.connect(lambda _checked=False, h=host: self.copy(h))
            row = QHBoxLayout()
            row.addStretch(1)
            row.addWidget(copy)
            column.addLayout(row)
            self._texts[host] = text
            self._tabs.addTab(page, titles[host])
        layout.addWidget(self._tabs)

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt override)
        """A language switch: the hints are made with values (a path), out of reach of the swap of
        texts set once; they are made again."""
        super().changeEvent(event)
        if event.type() == QEvent.Type.LanguageChange:
            for host, label in self._hints.items():
                label.setText(self._hint(host))

    def _hint(self, host: str) -> str:
        if host == "claude_desktop":
            return self.tr("Add to {path} (Settings › Developer › Edit Config), then restart Claude Desktop. "
                           "It starts this app's MCP server itself; the window need not run.").format(
                path=claude_desktop_config_path())
        if host == "cursor":
            return self.tr("Add to .cursor/mcp.json in your project (or ~/.cursor/mcp.json for all projects). "
                           "The API server must be running.")
        if host == "vscode":
            return self.tr("Add to .vscode/mcp.json in your workspace (VS Code uses the key \"servers\"). "
                           "The API server must be running.")
        if host == "claude_code":
            return self.tr("Run in a terminal. The API server must be running.")
        return self.tr("Any program can use the HTTP API directly: this reads a user's memory block.")

    # ---- public --------------------------------------------------------------------------

    def set_connection(self, url: str, token: str | None, command: list[str], user_id: str) -> None:
        self._url, self._token, self._command, self._user = url, token, list(command), user_id
        self._refresh()

    def set_shown(self, shown: bool) -> None:
        self._shown = shown
        self._refresh()

    def snippet(self, host: str, reveal: bool = False) -> str:
        """A host's snippet; the token masked unless `reveal` (or shown)."""
        token = self._token
        if token is not None and not (reveal or self._shown):
            token = MASK
        texts = {s.host: s.text for s in host_snippets(self._url, token, self._command, self._user)}
        return texts[host]

    def copy(self, host: str) -> None:
        QGuiApplication.clipboard().setText(self.snippet(host, reveal=True))

    def _refresh(self) -> None:
        for host, widget in self._texts.items():
            widget.setPlainText(self.snippet(host))
