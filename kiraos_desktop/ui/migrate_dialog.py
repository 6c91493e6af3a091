"""File > Copy memory to PostgreSQL: the target's address (password masked), the copy off the GUI thread, the verified counts."""
from __future__ import annotations

from typing import Callable

from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QVBoxLayout,
    QWidget,
)

from kiraos_desktop.core.storage.database_url import SECRET_PARAMS, DatabaseUrl, DatabaseUrlError, parse_database_url
from kiraos_desktop.ui.prompts import Prompts
from kiraos_desktop.ui.tasks import run_task


def _default_migrate() -> Callable:
    from kiraos_desktop.core.transfer.migrate import migrate

    return migrate


class MigrateDialog(QDialog):
    """Copies the data folder's SQLite memory into an empty PostgreSQL database, then offers to use it.

    `switched` is True when the user chose to use the copy: the setting database_url then names it,
    and the caller reopens the window on it. `migrate_fn` (core.migrate.migrate) is a parameter so
    that tests can hold the copy at a known point.
    """

    def __init__(self, engine, prompts: Prompts, parent: QWidget | None = None,
                 migrate_fn: Callable | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("migrateDialog")
        self.setWindowTitle(self.tr("Copy memory to PostgreSQL"))
        self.setMinimumWidth(560)
        self._engine = engine
        self._prompts = prompts
        self._migrate = migrate_fn or _default_migrate()
        self.report = None
        self.switched = False
        intro = QLabel(self.tr(
            "Copies the memory of {database} (profiles, events, history and the recall index) into an empty "
            "PostgreSQL database, where several API instances and windows can share it. The database must "
            "exist and be empty. The copy is one transaction: if it fails or you cancel it, the database is "
            "left empty.").format(database=engine.paths.db_path))
        intro.setWordWrap(True)
        self.url_edit = QLineEdit()
        self.url_edit.setObjectName("databaseUrl")
        self.url_edit.setPlaceholderText("postgresql://user@host:5432/database")
        self.url_edit.editingFinished.connect(self._on_url_edit_editing_finished)
        self.password_edit = QLineEdit()
        self.password_edit.setObjectName("databasePassword")
        self.password_edit.setEchoMode(QLineEdit.EchoMode.Password)
        self.password_edit.setPlaceholderText(self.tr("leave empty to use PGPASSWORD or .pgpass"))
        form = QFormLayout()
        form.addRow(self.tr("Database URL:"), self.url_edit)
        form.addRow(self.tr("Password:"), self.password_edit)
        self.problem = QLabel()
        self.problem.setObjectName("migrateProblem")
        self.problem.setWordWrap(True)
        self.problem.setStyleSheet("color: #c5221f;")
        self.problem.hide()
        self.done_label = QLabel()
        self.done_label.setObjectName("migrateDone")
        self.done_label.setWordWrap(True)
        self.done_label.hide()
        # The verified counts, a table of aligned columns: unwrapped, and tall enough to read at once.
        self.result_view = QPlainTextEdit()
        self.result_view.setObjectName("migrateResult")
        self.result_view.setReadOnly(True)
        self.result_view.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.result_view.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.result_view.setMinimumHeight(self.result_view.fontMetrics().lineSpacing() * 12)
        self.result_view.hide()
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        self.copy_button = self.buttons.addButton(self.tr("Copy"), QDialogButtonBox.ButtonRole.ActionRole)
        self.copy_button.setDefault(True)
        self.copy_button.clicked.connect(self._on_copy_button_clicked)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addLayout(form)
        layout.addWidget(self.problem)
        layout.addWidget(self.done_label)
        layout.addWidget(self.result_view, 1)
        layout.addWidget(self.buttons)

    # ---- the address -------------------------------------------------------------------

    def _on_url_edit_editing_finished(self) -> None:
        """A URL pasted with its password: the password moves to the masked field."""
        try:
            url = parse_database_url(self.url_edit.text())
        except DatabaseUrlError:
            return
        if url.password and not any(key in SECRET_PARAMS for key, _ in url.params):
            self.password_edit.setText(url.password)
            self.url_edit.setText(_without_password(url).redacted())

    def target(self) -> DatabaseUrl:
        """The URL field with the password field's password; DatabaseUrlError when it is no valid URL."""
        url = parse_database_url(self.url_edit.text())
        password = self.password_edit.text() or url.password
        return DatabaseUrl(url.user, url.host, url.port, url.database, password, url.params)

    def _show_problem(self, text: str) -> None:
        self.problem.setText(text)
        self.problem.setVisible(bool(text))

    # ---- the copy ------------------------------------------------------------------------

    def _on_copy_button_clicked(self) -> None:
        try:
            target = self.target()
        except DatabaseUrlError as exc:
            self._show_problem(self.tr("This is no PostgreSQL URL: {problem}").format(problem=exc))
            self.url_edit.setFocus()
            return
        self._show_problem("")
        title = self.windowTitle()
        source = self._engine.paths.db_path

        def work(progress, is_cancelled):
            return self._migrate(source, target, progress=progress, is_cancelled=is_cancelled)

        outcome = run_task(self, title, work,
                           label=self.tr("Copying the memory into {database}…").format(database=target.redacted()))
        if outcome.status == "cancelled":
            self._show_problem(self.tr("Cancelled: nothing was kept in {database}.").format(database=target.redacted()))
            return
        if outcome.status == "failed":
            self._show_problem(self.tr("Nothing was copied: {message}").format(
                message=target.hide_secrets(outcome.message)))
            return
        self.report = outcome.result
        self.done_label.setText(self._summary(target))
        self.done_label.show()
        self.result_view.setPlainText("\n".join(self.report.lines()))
        self.result_view.show()
        self.adjustSize()  # room for the counts
        self.copy_button.setEnabled(False)
        self._offer_switch(target)

    def _summary(self, target: DatabaseUrl) -> str:
        return self.tr("Copied into {database} and verified: the row counts of every table and of every "
                       "user agree.").format(database=target.redacted())

    def _offer_switch(self, target: DatabaseUrl) -> None:
        if self._engine.paths.companion:
            return  # the plugin's data stays where the plugin writes it
        question = self.tr(
            "Use {database} from now on? The setting database_url will name it (with its password, in "
            "settings.json of the data folder, readable only by you) and the window reopens on it. The "
            "SQLite database stays as it is.").format(database=target.redacted())
        if not self._prompts.confirm(self, self.windowTitle(), question, self.tr("Use it")):
            return
        url = target.connect_url(with_timeout=False)
        self._engine.edit_settings(lambda s: s.replace(database_url=url))
        self.switched = True
        self.accept()


def _without_password(url: DatabaseUrl) -> DatabaseUrl:
    return DatabaseUrl(url.user, url.host, url.port, url.database, None, url.params)
