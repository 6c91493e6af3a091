"""The status bar's recall-index build: an existing database's events indexed off the GUI thread,
with progress and a Stop button (what was indexed stays; the build goes on at the next start)."""
from __future__ import annotations

from PySide6.QtCore import Signal, Slot
from PySide6.QtWidgets import QHBoxLayout, QLabel, QProgressBar, QToolButton, QWidget

from kiraos_desktop.core.recall import build_index
from kiraos_desktop.core.store import MemoryStore
from kiraos_desktop.ui.tasks import TaskRunner


class RecallBuildIndicator(QWidget):
    """Hidden unless the store's recall index is being built."""

    message = Signal(str)  # for the status bar: how the build ended

    def __init__(self, store: MemoryStore, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._store = store
        self._runner: TaskRunner | None = None
        self.label = QLabel(self.tr("Indexing events for recall"))
        self.progress = QProgressBar()
        self.progress.setObjectName("recallBuildProgress")
        self.progress.setMaximumWidth(140)
        self.progress.setRange(0, 100)
        self.stop_button = QToolButton()
        self.stop_button.setObjectName("recallBuildStop")
        self.stop_button.setText(self.tr("Stop"))
        self.stop_button.setToolTip(self.tr("Stop indexing: what is indexed stays, the rest is indexed at the "
                                            "next start. Recall works meanwhile, more slowly."))
        self.stop_button.clicked.connect(self._on_stop_button_clicked)
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.label)
        row.addWidget(self.progress)
        row.addWidget(self.stop_button)
        self.hide()

    def start(self) -> bool:
        """Start the build when the index needs one; True when it started."""
        if self._store.recall_build_complete or self.is_running():
            return False
        store = self._store

        def work(progress, is_cancelled):
            return build_index(store, progress=progress, is_cancelled=is_cancelled)

        runner = TaskRunner(work, self)
        runner.progressed.connect(self._on_runner_progressed)
        runner.succeeded.connect(self._on_runner_succeeded)
        runner.failed.connect(self._on_runner_failed)
        runner.cancelled.connect(self._on_runner_cancelled)
        self._runner = runner
        self.progress.setValue(0)
        self.stop_button.setEnabled(True)
        self.show()
        runner.start()
        return True

    def is_running(self) -> bool:
        return self._runner is not None and self._runner.is_running()

    def stop(self, wait_ms: int = 30000) -> None:
        """Ask the build to stop after its current batch and wait for it (shutdown)."""
        if self._runner is not None and self._runner.is_running():
            self._runner.cancel()
            self._runner.wait(wait_ms)

    @Slot()
    def _on_stop_button_clicked(self) -> None:
        if self._runner is not None:
            self.stop_button.setEnabled(False)
            self._runner.cancel()

    @Slot(int, int)
    def _on_runner_progressed(self, done: int, total: int) -> None:
        self.progress.setValue(int(100 * done / total) if total else 0)

    @Slot(object)
    def _on_runner_succeeded(self, finished: object) -> None:
        self.hide()
        if finished:
            self.message.emit(self.tr("Recall index built: every event can be recalled."))
        else:
            self._paused()

    @Slot(str)
    def _on_runner_cancelled(self, _message: str) -> None:
        self.hide()
        self._paused()

    def _paused(self) -> None:
        self.message.emit(self.tr("Indexing stopped; it goes on at the next start."))

    @Slot(str)
    def _on_runner_failed(self, message: str) -> None:
        self.hide()
        self.message.emit(self.tr("Indexing events for recall failed: {message}").format(message=message))
