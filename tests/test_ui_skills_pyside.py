"""The Qt binding must survive a long editing session (PySide6 6.12.0 on Python 3.11 does not)."""
from __future__ import annotations

import os
import subprocess
import sys

PROBE = """
import sys
from PySide6.QtWidgets import QApplication, QLabel
app = QApplication([])
label = QLabel()
for _ in range(50000):  # about what 3000 keystrokes in the Skills page cost
    label.setText("x")
print("survived")
"""


def test_void_qt_calls_keep_a_reference_to_none():
    """Every void PySide6 call of version 6.12.0 returns None without taking a reference. On
    Python < 3.12 (None is not immortal) the process aborts with "none_dealloc: deallocating
    None" once None's ~5-20k references are used up: typing in the Skills page costs ~16 per
    keystroke, so the GUI dies after a few minutes of editing. Fix: PySide6-Essentials < 6.12
    (6.11.3 is sound) or Python >= 3.12. The probe runs in a child process so a crash cannot
    take the test session down."""
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    proc = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=120, env=env)
    assert proc.returncode == 0 and "survived" in proc.stdout, (
        "the Qt binding drops references to None (PySide6 6.12.0 on Python < 3.12): pin "
        f"PySide6-Essentials<6.12 or use Python >= 3.12. Child exit status {proc.returncode}, "
        f"stderr: {proc.stderr.strip().splitlines()[:1]}")
