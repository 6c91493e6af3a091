"""One window per data folder: a second launch hands over to the first (local socket) and exits 0."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

from kiraos_desktop.core.paths import DataPaths
from kiraos_desktop.ui.single_instance import SingleInstance, instance_key
from ui_helpers import OFFSCREEN_NOTE, open_engine

pytestmark = pytest.mark.qt_log_ignore(OFFSCREEN_NOTE, "This plugin does not support raise")


def test_the_key_follows_the_data_folder(tmp_path):
    first = open_engine(tmp_path / "a")
    second = open_engine(tmp_path / "b")
    try:
        assert instance_key(first.paths) == instance_key(first.paths)
        assert instance_key(first.paths) != instance_key(second.paths)
    finally:
        first.close()
        second.close()


def test_a_second_instance_object_hands_over_to_the_first(qtbot, tmp_path):
    key = f"kiraos-test-{os.getpid()}-{tmp_path.name}"
    first = SingleInstance(key)
    assert not first.hand_over()  # nobody there yet
    assert first.listen()
    try:
        second = SingleInstance(key)
        with qtbot.waitSignal(first.activated, timeout=5000):
            assert second.hand_over()
        with qtbot.waitSignal(first.activated, timeout=5000):  # every later launch too
            assert SingleInstance(key).hand_over()
    finally:
        first.close()
    assert not SingleInstance(key).hand_over()  # closed: the next launch opens a window of its own


@pytest.mark.skipif(sys.platform == "win32", reason="a stale name is a socket file on Unix only")
def test_a_name_left_by_a_crashed_instance_is_taken_over(qtbot, tmp_path):
    import socket

    from PySide6.QtCore import QDir

    key = f"kiraos-test-stale-{os.getpid()}-{tmp_path.name}"
    path = os.path.join(QDir.tempPath(), key)
    stale = socket.socket(socket.AF_UNIX)
    stale.bind(path)  # a crashed instance leaves its socket file behind, with nobody listening
    stale.close()
    try:
        again = SingleInstance(key)
        assert not again.hand_over()
        assert again.listen()
        with qtbot.waitSignal(again.activated, timeout=5000):
            assert SingleInstance(key).hand_over()
        again.close()
    finally:
        if os.path.exists(path):
            os.unlink(path)


def test_a_second_launch_of_the_program_exits_0_and_brings_the_first_forward(qtbot, tmp_path):
    """The real entry point in a fresh process, while this test plays the window already open."""
    data = tmp_path / "data"
    engine = open_engine(data)
    key = instance_key(engine.paths)
    engine.close()
    first = SingleInstance(key)
    assert first.listen()
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", KIRAOS_DATA_DIR=str(tmp_path / "default"))
    try:
        with qtbot.waitSignal(first.activated, timeout=30000):
            process = subprocess.Popen([sys.executable, "-m", "kiraos_desktop", "--data-dir", str(data),
                                        "--port", "0"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                       text=True)
        out, err = process.communicate(timeout=60)
    finally:
        first.close()
    assert process.returncode == 0, err
    assert "already open" in out and "in use" not in err


def test_after_opening_another_folder_later_launches_on_that_folder_come_here(qtbot, tmp_path, monkeypatch):
    from types import SimpleNamespace

    from kiraos_desktop.ui.app import AppController
    from ui_helpers import ui_settings

    engine = open_engine(tmp_path / "first")
    controller = AppController(engine, SimpleNamespace(port=0), ui_settings=ui_settings(tmp_path), start_server=False)
    qtbot.addWidget(controller.window)
    controller.serve_instance(SingleInstance(instance_key(engine.paths)))
    try:
        assert controller.reopen(data_dir=str(tmp_path / "second"))
        qtbot.addWidget(controller.window)
        with qtbot.waitSignal(controller.instance.activated, timeout=5000):
            assert SingleInstance(instance_key(controller.engine.paths)).hand_over()
        assert not SingleInstance(instance_key(engine.paths)).hand_over()  # the first folder is free again
    finally:
        controller.instance.close()
        controller.shutdown()
        engine.close()
