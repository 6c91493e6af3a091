"""Removing a folder tree without recursion: shutil.rmtree recurses once per level (Python 3.11), so a
hostile skill thousands of folders deep made every clean-up raise RecursionError and stay behind."""
from __future__ import annotations

import os
from pathlib import Path


def remove_tree(path: Path | str) -> bool:
    """Delete `path` and everything below it, deepest first, as far as permissions allow (as
    shutil.rmtree(ignore_errors=True) does); links are removed, never followed. True when it is gone."""
    top = os.fspath(path)
    stuck: set[str] = set()  # folders that could not be removed: not visited again
    stack = [top]
    while stack:
        current = stack[-1]
        try:
            with os.scandir(current) as entries:
                listed = list(entries)
        except FileNotFoundError:
            stack.pop()
            continue
        except NotADirectoryError:
            _unlink(current)
            stack.pop()
            continue
        except OSError:
            listed = []
        below = []
        for entry in listed:
            try:
                if entry.is_dir(follow_symlinks=False):
                    if entry.path not in stuck:
                        below.append(entry.path)
                else:
                    os.unlink(entry.path)
            except OSError:
                pass
        if below:
            stack.extend(below)  # `current` is looked at again once they are gone
            continue
        try:
            os.rmdir(current)
        except FileNotFoundError:
            pass
        except OSError:
            stuck.add(current)
        stack.pop()
    return not os.path.lexists(top)


def _unlink(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass
