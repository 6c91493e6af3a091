"""The PySide6 window of KiraOS Desktop (imports core, and api only to start/stop the server)."""
