"""Helpers for command-line tests: run `kiraos-desktop` in process and take what it printed."""
from __future__ import annotations

from kiraos_desktop.cli import main


def run(capsys, *argv) -> tuple[int, str, str]:
    """(exit code, stdout, stderr) of `kiraos-desktop ARGV`."""
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err
