"""Which frames are ours (this package's files, and runpy's, which runs the program for us), and the program's
traceback without them: a program that raises under Profile VRAM prints what it prints without us.
"""
from __future__ import annotations

import os
import runpy
import types

PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))
_RUNPY_FILE = os.path.abspath(getattr(runpy, "__file__", "") or "<none>")


def is_own_file(filename: str) -> bool:
    """A file of this package."""
    return os.path.dirname(os.path.abspath(filename)) == PACKAGE_DIR


def is_bootstrap_frame(filename: str) -> bool:
    """Ours or runpy's."""
    if filename.startswith("<frozen runpy"):
        return True
    return is_own_file(filename) or os.path.abspath(filename) == _RUNPY_FILE


def without_bootstrap_frames(tb: types.TracebackType | None) -> types.TracebackType | None:
    """The traceback minus the bootstrap's, runpy's and (around `import torch`) importlib's frames."""
    kept: list[types.TracebackType] = []
    while tb is not None:
        filename = tb.tb_frame.f_code.co_filename
        if not (is_bootstrap_frame(filename) or filename.startswith("<frozen importlib")):
            kept.append(tb)
        tb = tb.tb_next
    rebuilt: types.TracebackType | None = None
    for entry in reversed(kept):
        rebuilt = types.TracebackType(rebuilt, entry.tb_frame, entry.tb_lasti, entry.tb_lineno)
    return rebuilt


def strip_bootstrap_frames(exc: BaseException) -> None:
    """Removes our frames from the traceback of `exc` and of every exception in its chain."""
    seen = set()
    link: BaseException | None = exc
    while link is not None and id(link) not in seen:
        seen.add(id(link))
        link.__traceback__ = without_bootstrap_frames(link.__traceback__)
        link = link.__cause__ if link.__cause__ is not None else link.__context__
