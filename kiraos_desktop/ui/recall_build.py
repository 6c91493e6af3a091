"""The status bar's index builds: an existing database's events indexed for recall, then its keys,
values and events for the user search, off the GUI thread, with progress and a Stop button (what
was indexed stays; the build goes on at the next start)."""
from __future__ import annotations

from PySide6.QtCore import Signal, Slot
from PySide6.QtWidgets import QHBoxLayout, QLabel, QProgressBar, QToolButton, QWidget

from kiraos_desktop.core.storage import user_search
from kiraos_desktop.core.recall.ranking import build_index
from kiraos_desktop.core.storage.protocol import MemoryStore
from kiraos_desktop.ui.tasks import TaskRunner

# Each build's share of the progress bar's range (the bar shows them one after the other).
_PHASE = 1000
_RECALL, _SEARCH = "recall", "search"


class RecallBuildIndicator(QWidget):
    """Hidden unless the store's recall index or user search index is being built."""

    message = Signal(str)  # for the status bar: how the build ended

    def __init__(self, store: MemoryStore, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._store = store
        self._runner: TaskRunner | None = None
        self._phases: list[str] = []
        self._phase = 0
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
        """Start the builds the indexes need; True when they started."""
        store = self._store
        phases = [name for name, complete in ((_RECALL, store.recall_build_complete),
                                              (_SEARCH, store.user_search_build_complete)) if not complete]
        if not phases or self.is_running():
            return False
        self._phases, self._phase = phases, 0
        self.label.setText(self._label(phases[0]))

        def work(progress, is_cancelled):
            for number, name in enumerate(phases):
                def report(done: int, total: int, start: int = number * _PHASE) -> None:
                    progress(start + (_PHASE * done // total if total else 0), _PHASE * len(phases))
                build = build_index if name == _RECALL else user_search.build_index
                if not build(store, progress=report, is_cancelled=is_cancelled):
                    return False
            return True

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

    def _label(self, phase: str) -> str:
        return self.tr("Indexing events for recall") if phase == _RECALL else self.tr("Indexing users for search")

    @Slot(int, int)
    def _on_runner_progressed(self, done: int, total: int) -> None:
        self.progress.setValue(int(100 * done / total) if total else 0)
        phase = min(done // _PHASE, len(self._phases) - 1)
        if phase != self._phase:
            self._phase = phase
            self.label.setText(self._label(self._phases[phase]))

    @Slot(object)
    def _on_runner_succeeded(self, finished: object) -> None:
        self.hide()
        if finished and _RECALL in self._phases:
            self.message.emit(self.tr("Recall index built: every event can be recalled."))
        elif finished:
            self.message.emit(self.tr("Search index built: keys, values and events are searched quickly."))
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
        if self._phases[self._phase] == _RECALL:
            self.message.emit(self.tr("Indexing events for recall failed: {message}").format(message=message))
        else:
            self.message.emit(self.tr("Indexing users for search failed: {message}").format(message=message))
