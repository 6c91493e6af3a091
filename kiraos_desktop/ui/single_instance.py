"""One window per data folder: a second launch on the same folder hands over to the first and exits."""
from __future__ import annotations

import hashlib

from PySide6.QtCore import QObject, Signal
from PySide6.QtNetwork import QLocalServer, QLocalSocket

SHOW = b"show\n"
CONNECT_MS = 1500


def instance_key(paths) -> str:
    """A local socket name for this data folder and database (the same folder gives the same name)."""
    place = f"{paths.data_dir.resolve()}|{paths.db_path.resolve()}"
    return "kiraos-desktop-" + hashlib.sha256(place.encode("utf-8")).hexdigest()[:24]


class SingleInstance(QObject):
    """`hand_over()` asks a running instance to show its window; `listen()` makes this the one that is
    asked (`activated` is emitted on the GUI thread each time a later launch hands over)."""

    activated = Signal()

    def __init__(self, key: str, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.key = key
        self._server: QLocalServer | None = None
        self._clients: list[QLocalSocket] = []

    def hand_over(self) -> bool:
        """True when a running instance took the request (this launch should then exit)."""
        socket = QLocalSocket()
        socket.connectToServer(self.key)
        if not socket.waitForConnected(CONNECT_MS):
            return False
        socket.write(SHOW)
        socket.waitForBytesWritten(CONNECT_MS)
        socket.disconnectFromServer()
        if socket.state() != QLocalSocket.LocalSocketState.UnconnectedState:
            socket.waitForDisconnected(CONNECT_MS)
        return True

    def listen(self) -> bool:
        """Become the instance later launches hand over to. A name left by a crashed instance (nobody
        answers on it, hand_over() said so) is taken over."""
        server = QLocalServer(self)
        server.setSocketOptions(QLocalServer.SocketOption.UserAccessOption)
        if not server.listen(self.key):
            QLocalServer.removeServer(self.key)
            if not server.listen(self.key):
                return False
        server.newConnection.connect(self._on_server_new_connection)
        self._server = server
        return True

    def close(self) -> None:
        for socket in self._clients:
            socket.readyRead.disconnect(self._on_client_ready_read)
            socket.disconnected.disconnect(self._on_client_disconnected)
            socket.abort()
        self._clients.clear()
        if self._server is not None:
            self._server.close()
            self._server = None

    def _on_server_new_connection(self) -> None:
        while self._server is not None and self._server.hasPendingConnections():
            socket = self._server.nextPendingConnection()
            self._clients.append(socket)
            socket.readyRead.connect(self._on_client_ready_read)
            socket.disconnected.connect(self._on_client_disconnected)
            if socket.bytesAvailable():
                self._read(socket)

    def _on_client_ready_read(self) -> None:
        self._read(self.sender())

    def _on_client_disconnected(self) -> None:
        socket = self.sender()
        if socket in self._clients:
            self._clients.remove(socket)
            socket.deleteLater()

    def _read(self, socket: QLocalSocket) -> None:
        if bytes(socket.readAll()).startswith(SHOW.strip()):
            self.activated.emit()
