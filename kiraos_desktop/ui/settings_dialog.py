"""Settings dialog: every setting of settings.json, validated at the field, saved through the engine."""
from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit
from typing import Any, Callable

from PySide6.QtCore import QRect, Qt, Slot
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QScrollArea,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from kiraos_desktop.core.storage.database_url import DatabaseUrl, DatabaseUrlError, parse_database_url
from kiraos_desktop.core.settings import Settings, SettingsError
from kiraos_desktop.core.skills.file_ops import enabled_in
from kiraos_desktop.ui.i18n import LANGUAGE_NAMES, SYSTEM
from kiraos_desktop.ui.prompts import prompts

#: The settings that the running API server was started with; a change needs a restart.
API_KEYS = ("api_host", "api_port", "api_token")
NUMBER_KEYS = ("max_events_per_user", "max_profiles_per_user", "max_event_keep", "max_context_chars", "api_port")
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")

def api_settings_changed(old: Settings, new: Settings) -> bool:
    """True when the API server must be restarted to follow `new` (host, port or token changed).

    The main window calls this from its `engine.on_settings_changed` listener.
    """
    return any(getattr(old, key) != getattr(new, key) for key in API_KEYS)


def key_of_error(message: str) -> str | None:
    """The setting named by a SettingsError message (the longest key the message starts with)."""
    names = sorted(Settings.__dataclass_fields__, key=len, reverse=True)
    for name in names:
        if message.startswith(name):
            return name
    for name in names:
        if name in message:
            return name
    return None


def _readable(key: str, message: str) -> str:
    """'api_port must be at most 65535, got 70000' -> 'Must be at most 65535, got 70000'."""
    if message.startswith(key + " "):
        rest = message[len(key) + 1:]
        return rest[:1].upper() + rest[1:]
    return message


class _Field:
    """One editor, its error label and how to read its value for Settings.replace."""

    def __init__(self, key: str, editor: QWidget, error: QLabel, read: Callable[[], Any]):
        self.key, self.editor, self.error, self.read = key, editor, error, read


class SettingsDialog(QDialog):
    """Edit every setting of DESIGN §4. Construct with `SettingsDialog(engine, parent)` and `exec()`.

    Uses `engine.settings`, `engine.skills.skills()` (for the skill check boxes),
    `engine.paths` (default skills folder) and, on OK, `engine.edit_settings(edits)`: the fields
    changed here, applied to what settings.json holds at that moment.
    Errors are shown under the field that has them and OK stays disabled while any field is
    invalid. The dialog never restarts the API server: the window's settings listener does that
    when `api_settings_changed(old, new)` says so.
    """

    def __init__(self, engine, parent: QWidget | None = None, running_url: str = ""):
        """`running_url`: where the API serves now, when it serves (it may differ from the saved
        host and port: --host/--port on the command line)."""
        super().__init__(parent)
        self._engine = engine
        self._running_url = running_url
        self._original: Settings = engine.settings
        self._fields: dict[str, _Field] = {}
        self._errors: dict[str, str] = {}
        self.setWindowTitle(self.tr("Settings"))
        self.setMinimumWidth(640)

        # The groups scroll (vertically only) and the button row stays below them: all four need
        # more height than a 700-pixel screen has.
        fields = QWidget()
        groups = QVBoxLayout(fields)
        groups.setContentsMargins(0, 0, 0, 0)
        groups.addWidget(self._memory_group())
        groups.addWidget(self._skills_group())
        groups.addWidget(self._api_group())
        groups.addWidget(self._window_group())
        self._scroll = QScrollArea()
        self._scroll.setWidget(fields)
        self._scroll.setWidgetResizable(True)
        self._scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        self._scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        layout = QVBoxLayout(self)
        layout.addWidget(self._scroll)
        self._buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
            | QDialogButtonBox.StandardButton.RestoreDefaults)
        self._buttons.accepted.connect(self.accept)
        self._buttons.rejected.connect(self.reject)
        self._buttons.button(QDialogButtonBox.StandardButton.RestoreDefaults).clicked.connect(
            self._on_defaults_clicked)
        layout.addWidget(self._buttons)
        self._align_label_columns()
        self._load(self._original)
        self._fit_to_screen()

    def _fit_to_screen(self) -> None:
        """As tall as the fields need, but no taller than the screen (a frame's worth to spare)."""
        fields = self._scroll.widget()
        wanted = self.sizeHint()
        wanted.setHeight(wanted.height() - self._scroll.sizeHint().height() + fields.sizeHint().height())
        wanted.setWidth(max(wanted.width(), fields.sizeHint().width() + self._scroll.verticalScrollBar()
                            .sizeHint().width() + 2 * self.layout().contentsMargins().left()))
        room = _available_screen(self)
        if room.isValid():
            wanted.setHeight(min(wanted.height(), room.height() - 60))
        self.resize(wanted)

    # ---- building ------------------------------------------------------------------------

    def _error_label(self) -> QLabel:
        label = QLabel()
        label.setObjectName("fieldError")
        label.setStyleSheet("color: #d93025;")
        label.setVisible(False)
        return label

    def _hint(self, text: str) -> QLabel:
        # No word wrap: wrapped labels nested in a QFormLayout get too little height and overlap.
        label = QLabel(text)
        label.setObjectName("fieldHint")
        # Told apart by a smaller size, not by a greyed (disabled) colour: that was light grey on grey,
        # below a readable contrast in both schemes. The text keeps the palette's own colour.
        font = label.font()
        font.setPointSizeF(max(7.0, font.pointSizeF() * 0.9))
        label.setFont(font)
        return label

    def _add_row(self, form: QFormLayout, key: str, label: str, editor: QWidget, read: Callable[[], Any],
                 hint: str = "", row_widget: QWidget | None = None, hint_beside: bool = False) -> None:
        error = self._error_label()
        box = QWidget()
        column = QVBoxLayout(box)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(2)
        if hint and hint_beside:
            line = QHBoxLayout()
            line.addWidget(row_widget or editor)
            line.addSpacing(8)
            line.addWidget(self._hint(hint), 1)
            column.addLayout(line)
        else:
            column.addWidget(row_widget or editor)
            if hint:
                column.addWidget(self._hint(hint))
        column.addWidget(error)
        form.addRow(label, box)
        self._fields[key] = _Field(key, editor, error, read)

    def _number(self, form: QFormLayout, key: str, label: str, hint: str) -> None:
        edit = QLineEdit()
        edit.setObjectName(key)
        edit.setFixedWidth(90)
        edit.setAlignment(Qt.AlignmentFlag.AlignRight)
        edit.textChanged.connect(self._on_field_changed)

        def read() -> Any:
            text = edit.text().strip()
            try:
                return int(text)
            except ValueError:
                return text  # Settings.replace names the key and says it must be a whole number
        self._add_row(form, key, label, edit, read, hint, hint_beside=True)

    def _memory_group(self) -> QGroupBox:
        group = QGroupBox(self.tr("Memory"))
        form = QFormLayout(group)
        self._number(form, "max_events_per_user", self.tr("Events in context:"),
                     self.tr("newest events per user in context and memory_query"))
        self._number(form, "max_profiles_per_user", self.tr("Profile entries per user:"),
                     self.tr("more are refused; 0 = no limit"))
        self._number(form, "max_event_keep", self.tr("Events kept per user:"),
                     self.tr("the oldest go when a new one comes; 0 = keep all"))
        self._number(form, "max_context_chars", self.tr("Context length:"),
                     self.tr("characters per user; whole items are dropped; 0 = unlimited"))
        self._database_row(form)
        return group

    def _database_row(self, form: QFormLayout) -> None:
        """The PostgreSQL URL without its password, and the password in a masked field of its own."""
        self._db_url = QLineEdit()
        self._db_url.setObjectName("database_url")
        self._db_url.setPlaceholderText(self.tr("(the SQLite file in the data folder)"))
        self._db_url.textChanged.connect(self._on_field_changed)
        self._db_password = QLineEdit()
        self._db_password.setObjectName("database_password")
        self._db_password.setEchoMode(QLineEdit.EchoMode.Password)
        self._db_password.setPlaceholderText(self.tr("password"))
        self._db_password.textChanged.connect(self._on_field_changed)
        row = QWidget()
        line = QHBoxLayout(row)
        line.setContentsMargins(0, 0, 0, 0)
        line.addWidget(self._db_url, 3)
        line.addWidget(self._db_password, 1)
        self._add_row(form, "database_url", self.tr("PostgreSQL database:"), self._db_url, self._database_url,
                      self.tr("postgresql://user@host:5432/database; empty = SQLite.\n"
                              "A change reopens the window on that database."), row_widget=row)

    def _database_url(self) -> str:
        """The URL field with the password field's password (the text as typed when it is no URL)."""
        text = self._db_url.text().strip()
        try:
            url = parse_database_url(text) if text else None
        except DatabaseUrlError:
            return text
        if url is None or not self._db_password.text():
            return text
        return DatabaseUrl(url.user, url.host, url.port, url.database, self._db_password.text(),
                           url.params).connect_url(with_timeout=False)

    def _skills_group(self) -> QGroupBox:
        group = QGroupBox(self.tr("Skills"))
        form = QFormLayout(group)
        self._skills_dir = QLineEdit()
        self._skills_dir.setObjectName("skills_dir")
        self._skills_dir.setPlaceholderText(str(self._engine.paths.skills_dir))
        self._skills_dir.textChanged.connect(self._on_field_changed)
        browse = QPushButton(self.tr("Browse…"))
        browse.setObjectName("browseSkillsDir")
        browse.clicked.connect(self._on_browse_clicked)
        row = QWidget()
        line = QHBoxLayout(row)
        line.setContentsMargins(0, 0, 0, 0)
        line.addWidget(self._skills_dir, 1)
        line.addWidget(browse)
        self._add_row(form, "skills_dir", self.tr("Skills folder:"), self._skills_dir,
                      lambda: self._skills_dir.text().strip() or None,
                      self.tr("Empty = the default folder shown. A new folder is used after a restart."),
                      row_widget=row)

        self._skill_list = QListWidget()
        self._skill_list.setObjectName("disabled_skills")
        self._skill_list.setMinimumHeight(110)
        self._skill_list.setMaximumHeight(160)
        self._skill_list.itemChanged.connect(self._on_field_changed)
        self._add_row(form, "disabled_skills", self.tr("Skills offered to the bot:"), self._skill_list,
                      self._disabled_names, self.tr("Unchecked skills are hidden from the tool list."))

        self._slash = QCheckBox(self.tr("Route /commands to skills"))
        self._slash.setObjectName("enable_slash_commands")
        self._slash.toggled.connect(self._on_field_changed)
        self._add_row(form, "enable_slash_commands", self.tr("Slash commands:"), self._slash, self._slash.isChecked)
        return group

    def _api_group(self) -> QGroupBox:
        group = QGroupBox(self.tr("Loopback API"))
        form = QFormLayout(group)
        self._host = QLineEdit()
        self._host.setObjectName("api_host")
        self._host.textChanged.connect(self._on_field_changed)
        self._host_warning = QLabel(self.tr("Not a loopback address: other machines can reach the API."))
        self._host_warning.setStyleSheet("color: #b06000;")
        self._host_warning.setVisible(False)
        host_box = QWidget()
        host_column = QVBoxLayout(host_box)
        host_column.setContentsMargins(0, 0, 0, 0)
        host_column.addWidget(self._host)
        host_column.addWidget(self._host_warning)
        self._add_row(form, "api_host", self.tr("Host:"), self._host, self._host.text, row_widget=host_box)
        self._number(form, "api_port", self.tr("Port:"), self.tr("0 = any free port"))

        self._token = QLineEdit()
        self._token.setObjectName("api_token")
        self._token.setEchoMode(QLineEdit.EchoMode.Password)
        self._token.setPlaceholderText(self.tr("(generated token from the api-token file)"))
        self._token.textChanged.connect(self._on_field_changed)
        show = QToolButton()
        show.setObjectName("showToken")
        show.setText(self.tr("Show"))
        show.setCheckable(True)
        show.toggled.connect(self._on_show_token_toggled)
        row = QWidget()
        line = QHBoxLayout(row)
        line.setContentsMargins(0, 0, 0, 0)
        line.addWidget(self._token, 1)
        line.addWidget(show)
        self._add_row(form, "api_token", self.tr("Token:"), self._token, lambda: self._token.text().strip(),
                      self.tr("Empty = the generated token.\nChanging host, port or token restarts the API server."),
                      row_widget=row)
        self._running_note = QLabel(group)
        self._running_note.setObjectName("apiRunningNote")
        self._running_note.setWordWrap(True)
        settings = self._engine.settings
        running = urlsplit(self._running_url) if self._running_url else None
        if running is not None and (running.port != settings.api_port and settings.api_port != 0
                                    or (running.hostname or "") != settings.api_host.strip("[]")):
            self._running_note.setText(self.tr(
                "The API serves at {running} now (chosen on the command line). Host and port here are the "
                "saved ones ({saved}), used when it starts without those options.").format(
                    running=self._running_url, saved=f"{settings.api_host}:{settings.api_port}"))
            form.addRow(self._running_note)
        else:
            self._running_note.hide()
        return group

    def _window_group(self) -> QGroupBox:
        group = QGroupBox(self.tr("Window"))
        form = QFormLayout(group)
        self._language = QComboBox()
        self._language.setObjectName("language")
        self._language.addItem(self.tr("System"), SYSTEM)
        for code, name in LANGUAGE_NAMES.items():  # each language in its own words
            self._language.addItem(name, code)
        self._language.currentIndexChanged.connect(self._on_field_changed)
        self._add_row(form, "language", self.tr("Language:"), self._language, self._language.currentData,
                      self.tr("Applies at once; “System” follows the language of the desktop."), hint_beside=True)
        self._scheme = QComboBox()
        self._scheme.setObjectName("color_scheme")
        for text, value in ((self.tr("System"), "system"), (self.tr("Light"), "light"), (self.tr("Dark"), "dark")):
            self._scheme.addItem(text, value)
        self._scheme.currentIndexChanged.connect(self._on_field_changed)
        self._add_row(form, "color_scheme", self.tr("Colours:"), self._scheme, self._scheme.currentData,
                      self.tr("Applies at once; “System” follows the desktop's light or dark mode."),
                      hint_beside=True)
        self._tray = QCheckBox(self.tr("Closing the window keeps the API serving in the tray"))
        self._tray.setObjectName("close_to_tray")
        self._tray.toggled.connect(self._on_field_changed)
        self._add_row(form, "close_to_tray", self.tr("Tray:"), self._tray, self._tray.isChecked,
                      self.tr("Where the desktop has a tray. Without one, closing asks while the API serves."))
        return group

    def _align_label_columns(self) -> None:
        """One label column width for the three groups, so their fields line up."""
        forms = [group.layout() for group in self.findChildren(QGroupBox)]
        labels = [form.itemAt(row, QFormLayout.ItemRole.LabelRole).widget()
                  for form in forms for row in range(form.rowCount())
                  if form.itemAt(row, QFormLayout.ItemRole.LabelRole) is not None]
        width = max((label.sizeHint().width() for label in labels), default=0)
        for label in labels:
            label.setMinimumWidth(width)
        # The groups are wider now, but the layout holding them keeps the sizes it asked them for
        # before (the dialog is not shown yet, so nothing tells it): _fit_to_screen measured the
        # old width and cut off the longest hints on the right (about 30 pixels in English).
        for group in self.findChildren(QGroupBox):
            group.updateGeometry()

    # ---- values --------------------------------------------------------------------------

    def _load(self, settings: Settings) -> None:
        for key in NUMBER_KEYS:
            self.findChild(QLineEdit, key).setText(str(getattr(settings, key)))
        self._skills_dir.setText(settings.skills_dir or "")
        self._fill_skills(settings.disabled_skills)
        self._slash.setChecked(settings.enable_slash_commands)
        self._host.setText(settings.api_host)
        self._token.setText(settings.api_token)
        self._language.setCurrentIndex(max(0, self._language.findData(settings.language)))
        self._scheme.setCurrentIndex(max(0, self._scheme.findData(settings.color_scheme)))
        self._tray.setChecked(settings.close_to_tray)
        url = parse_database_url(settings.database_url) if settings.database_url else None
        self._db_password.setText(url.password or "" if url is not None else "")
        self._db_url.setText(DatabaseUrl(url.user, url.host, url.port, url.database, None, url.params)
                             .connect_url(with_timeout=False) if url is not None and url.password
                             else settings.database_url)
        self._validate()

    def _fill_skills(self, disabled: list[str]) -> None:
        self._skill_list.blockSignals(True)
        self._skill_list.clear()
        names: list[tuple[str, str]] = []
        seen: set[str] = set()
        broken: set[str] = set()
        for skill in self._engine.skills.skills():
            if skill.name and skill.name not in seen:
                seen.add(skill.name)
                if not skill.valid:
                    broken.add(skill.name)
                note = "" if skill.valid else self.tr(" (has errors)")
                names.append((skill.name, skill.name + note))
        for name in disabled:  # keep names of skills that are not in the folder right now
            if name not in seen:
                seen.add(name)
                names.append((name, name + self.tr(" (not found)")))
        for name, text in names:
            item = QListWidgetItem(text)
            item.setData(Qt.ItemDataRole.UserRole, name)
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(Qt.CheckState.Unchecked if name in disabled else Qt.CheckState.Checked)
            if name in disabled and name in broken:  # turned on, bots would be offered a broken tool
                item.setFlags(item.flags() & ~Qt.ItemFlag.ItemIsUserCheckable)
                item.setToolTip(self.tr("Fix this skill's problems in the Skills page before turning it on."))
            self._skill_list.addItem(item)
        if not names:
            placeholder = QListWidgetItem(self.tr("No skills in the skills folder."))
            placeholder.setFlags(Qt.ItemFlag.NoItemFlags)
            self._skill_list.addItem(placeholder)
        self._skill_list.blockSignals(False)

    def _disabled_names(self) -> list[str]:
        names = []
        for row in range(self._skill_list.count()):
            item = self._skill_list.item(row)
            name = item.data(Qt.ItemDataRole.UserRole)
            if name and item.checkState() == Qt.CheckState.Unchecked:
                names.append(name)
        return names

    def field_editor(self, key: str) -> QWidget:
        """The editor widget of one setting (for tests and for focusing a field)."""
        return self._fields[key].editor

    def field_error(self, key: str) -> str:
        """The error shown at a field, or "" when it is valid."""
        return self._errors.get(key, "")

    def values(self) -> dict[str, Any]:
        """Raw values as read from the editors (not yet validated)."""
        return {key: field.read() for key, field in self._fields.items()}

    def new_settings(self) -> Settings | None:
        """The validated settings the dialog would save, or None while a field is invalid."""
        try:
            return self._original.replace(**self.values())
        except SettingsError:
            return None

    def edits(self) -> Callable[[Settings], Settings]:
        """What OK writes, as a change of the settings found on disk at that moment: the fields its
        user changed, and of the skills only those whose box was (un)ticked; every other field keeps
        what the file holds then, whatever this dialog was opened with."""
        values = self.values()
        changed = {key: value for key, value in values.items()
                   if key != "disabled_skills" and value != getattr(self._original, key)}
        was, now = set(self._original.disabled_skills), set(values["disabled_skills"])
        toggled = {name: name not in now for name in sorted(was ^ now)}  # name -> enabled

        def edit(found: Settings) -> Settings:
            names = list(found.disabled_skills)
            for name, enabled in toggled.items():
                names = enabled_in(names, name, enabled)
            return found.replace(**changed, disabled_skills=names)

        return edit

    # ---- validation ----------------------------------------------------------------------

    def _validate(self) -> bool:
        errors: dict[str, str] = {}
        values = self.values()
        for key, value in values.items():
            try:
                self._original.replace(**{key: value})
            except SettingsError as exc:
                errors[key_of_error(str(exc)) or key] = self._message(key, exc)
        if not errors:
            try:
                self._original.replace(**values)
            except SettingsError as exc:  # a rule that spans fields: show it where the key says
                key = key_of_error(str(exc)) or "api_host"
                errors[key] = self._message(key, exc)
        self._errors = errors
        for key, field in self._fields.items():
            message = errors.get(key, "")
            field.error.setText(message)
            field.error.setVisible(bool(message))
            field.editor.setProperty("invalid", bool(message))
            field.editor.setToolTip(message)
        host = self._host.text().strip()
        self._host_warning.setVisible(bool(host) and "api_host" not in errors and host not in LOOPBACK_HOSTS)
        self._buttons.button(QDialogButtonBox.StandardButton.Ok).setEnabled(not errors)
        return not errors

    def _message(self, key: str, exc: SettingsError) -> str:
        """The rule broken, in the window's language (the core's English text for any other rule)."""
        value = self.values().get(key)
        code = getattr(exc, "code", "")
        if code == "whole_number":
            return self.tr("Use a whole number such as 10, not “{text}”.").format(text=value)
        if code == "negative":
            return self.tr("Use 0 or more, not {n}.").format(n=value)
        if code == "port_max":
            return self.tr("A port is at most 65535, not {n}.").format(n=value)
        if code == "host_empty":
            return self.tr("The host must not be empty: enter one such as 127.0.0.1.")
        if code == "host_invalid":
            return self.tr("“{text}” is not a host name or an IP address; use e.g. 127.0.0.1 or localhost."
                           ).format(text=value)
        if code == "database_url_invalid":
            return self.tr("Not a PostgreSQL URL: {problem}").format(problem=str(exc).split(": ", 1)[-1])
        if code == "token_invalid":
            return self.tr("The token is sent in an HTTP header: use letters, digits and ASCII punctuation "
                           "only, without spaces or line breaks.")
        return _readable(key, str(exc))

    @Slot()
    def _on_field_changed(self, *_args) -> None:
        self._validate()

    @Slot(bool)
    def _on_show_token_toggled(self, shown: bool) -> None:
        self._token.setEchoMode(QLineEdit.EchoMode.Normal if shown else QLineEdit.EchoMode.Password)

    @Slot()
    def _on_browse_clicked(self) -> None:
        start = self._skills_dir.text().strip() or str(self._engine.paths.skills_dir)
        folder = prompts.folder(self, self.tr("Choose the skills folder"), start)
        if folder:
            self._skills_dir.setText(str(Path(folder)))

    @Slot()
    def _on_defaults_clicked(self) -> None:
        defaults = Settings()
        self._load(defaults.replace(api_token=self._token.text().strip()) if self._token.text().strip()
                   else defaults)

    # ---- accept --------------------------------------------------------------------------

    def accept(self) -> None:
        """Validate everything, save through the engine (atomic write + apply), then close."""
        if not self._validate():
            return
        if self.new_settings() is None:
            return
        try:
            self._engine.edit_settings(self.edits())
        except (OSError, SettingsError) as exc:
            prompts.error(self, self.tr("Settings not saved"),
                          self.tr("The settings could not be saved:\n{0}").format(exc))
            return
        super().accept()


def _available_screen(widget: QWidget) -> QRect:
    """The desktop area the dialog may use (the parent's screen, else the primary one)."""
    screen = widget.screen()
    return screen.availableGeometry() if screen is not None else QRect()
