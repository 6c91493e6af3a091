"""A long editing session on the Skills page must not abort the process (the PySide6 6.12 bug)."""
from __future__ import annotations

import os
import subprocess
import sys

PROBE = """
from kiraos_desktop.ui.skills import SkillsPage
from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QApplication, QLabel

class Emitter(QObject):
    changed = Signal()

app = QApplication([])
label, emitter = QLabel(), Emitter()
for _ in range(50000):  # about what 3000 keystrokes with live preview cost
    label.setText("x")
    emitter.changed.emit()
print("survived")
"""


def test_the_page_survives_many_void_calls_and_emits():
    """PySide6 6.12.0 on Python < 3.12 drops a reference to None on every void call and to True
    on every emit; typing in the Skills page costs ~16 None references per keystroke, so with such
    a binding (pyproject.toml pins PySide6 below 6.12) the process aborts after a few minutes of
    editing. Run in a child process: a crash cannot end the session."""
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")
    proc = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=120, env=env,
                          cwd=root)
    assert proc.returncode == 0 and "survived" in proc.stdout, (
        f"child exit status {proc.returncode}: {proc.stderr.strip().splitlines()[-1:] or proc.stdout}")
