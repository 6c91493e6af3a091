"""The PySide6 window of KiraOS Desktop (imports core, and api only to start/stop the server)."""
from kiraos_desktop.ui.refcount_guard import protect_singletons

protect_singletons()  # before any PySide6 code runs: see refcount_guard for the PySide6 6.12 bug
