"""VRAM Lens in the user's own Jupyter kernel: ``%%vram`` records one cell, ``%vram start`` / ``%vram stop``
a span of cells, and each recording is written as a memory snapshot where the extension watches (the folder
in ``VRAM_LENS_NOTEBOOK_DIR``, else ``vram-lens-snapshots`` in the kernel's working directory), which loads
it and annotates the cells at once. Loaded with ``%load_ext vram_lens.notebook`` (``VRAM Lens: Record in
Notebook Kernel...`` puts that cell, with this package's folder on ``sys.path``, in the notebook).

The same rules as the Profile VRAM bootstrap: nothing here imports torch or touches CUDA before the user's
code has (``importhook``); recording starts at CUDA's first initialisation when the cell brings it about
(``torch.cuda._lazy_call``), else at once, in the form this PyTorch has (``recording``); and no recording is
left enabled after the cell or ``%vram stop`` (``recording.stop_recording``), even when a lazy start was
queued and CUDA initialises later.

The cell under ``%%vram`` runs under the file name the kernel gave the whole cell, with its own line
numbers, so its frames are that cell's lines. Beside each snapshot, ``<snapshot>.cells.json`` holds the
text each cell of its frames ran with (from the kernel's history), so a cell edited since still finds its
place. Checked by ``mypy --strict`` against Python 3.7 with the rest of the package.
"""
from __future__ import annotations

import ast
import json
import os
import re
import sys
import time
from types import FrameType, ModuleType
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Optional

from .cellnames import cell_hash
from .importhook import TorchImportHook, watch_torch_import
from .recording import Torch, recording_form, start_recording, stop_recording
from .snapshot import take_snapshot, write_snapshot

if TYPE_CHECKING:
    from .recording import RecordingForm

#: Where snapshots go, as the extension sets it in the cell that loads this module.
SNAPSHOT_DIR_VARIABLE = "VRAM_LENS_NOTEBOOK_DIR"
DEFAULT_DIR = "vram-lens-snapshots"
#: The cell texts beside a snapshot (read by src/engine/notebook/cellTexts.ts).
CELL_TEXTS_SUFFIX = ".cells.json"
CELL_TEXTS_FORMAT = "vram-lens-cells"
MAX_ENTRIES = 1000000

USAGE = (
    "VRAM Lens: %%vram on the first line of a cell records that cell; %vram start ... %vram stop records the "
    "cells in between; %vram status says what is recording. Snapshots go to $" + SNAPSHOT_DIR_VARIABLE + "."
)

# The IPython shell: untyped (IPython ships no type information), used through the few methods named here.
Shell = Any


def _say(text: str) -> None:
    print("VRAM Lens: " + text)


class Recorder(object):
    """One kernel's recording: armed by %%vram or %vram start, recording once CUDA is up, written at the end."""

    def __init__(self, shell: Shell) -> None:
        self.shell = shell
        self.armed = False
        self.recording = False
        self.label = ""
        self.problem: Optional[str] = None
        self.torch: Torch = None
        self.form: Optional[RecordingForm] = None
        self.hook: Optional[TorchImportHook] = None
        #: Bumped by every start and stop: a lazy start queued for an earlier recording does nothing.
        self.generation = 0

    def start(self, label: str) -> None:
        """Arms a recording: now if CUDA is up, at its first initialisation if not, after `import torch` if none yet."""
        self.generation += 1
        self.armed = True
        self.recording = False
        self.label = label
        self.problem = None
        self.hook = watch_torch_import(self._on_torch)

    def _on_torch(self, torch: ModuleType) -> None:
        """torch is imported (by the user's code, or already): find how to record, and start when CUDA is up."""
        if not self.armed:
            return
        self.torch = torch
        version = getattr(torch, "__version__", "?")
        form = recording_form(torch)
        version_info = getattr(torch, "version", None)
        if form is None:
            self.problem = "PyTorch %s cannot record memory history (that needs PyTorch 2.0 or newer)." % version
            return
        if not (getattr(version_info, "cuda", None) or getattr(version_info, "hip", None)):
            self.problem = "PyTorch %s in %s was built without CUDA: there is no GPU memory to record." % (version, sys.executable)
            return
        self.form = form
        generation = self.generation
        cuda = torch.cuda
        if cuda.is_initialized():
            self._start_now(generation)
        else:
            cuda._lazy_call(lambda: self._start_now(generation))

    def _start_now(self, generation: int) -> None:
        """Inside (or after) CUDA's initialisation. Never raises: the user's cell goes on either way."""
        if generation != self.generation or not self.armed or self.recording or self.form is None:
            return
        torch = self.torch
        try:
            backend = getattr(torch.cuda, "get_allocator_backend", None)
            if backend is not None and backend() == "cudaMallocAsync":
                self.problem = "PyTorch's cudaMallocAsync allocator cannot record memory history."
                return
            start_recording(torch, self.form, MAX_ENTRIES, "python", clear_history=True)
            self.recording = True
        except Exception as e:
            self.problem = "PyTorch %s could not start recording (%s: %s)." % (getattr(torch, "__version__", "?"), type(e).__name__, e)

    def stop(self) -> Optional[str]:
        """Ends the recording: the snapshot (and the cell texts) written, recording off. Returns the snapshot's path."""
        was_armed = self.armed
        self.armed = False
        self.generation += 1
        hook = self.hook
        self.hook = None
        if hook is not None and hook in sys.meta_path:
            sys.meta_path.remove(hook)
        if not self.recording:
            if was_armed:
                _say(self.problem or "nothing was recorded: the code run did not initialise CUDA (no tensor on the GPU).")
            return None
        torch = self.torch
        form = self.form
        assert form is not None
        try:
            data = take_snapshot(torch)
        finally:
            self.recording = False
            stop_recording(torch, form)
        path = self._snapshot_path()
        cells = self._cell_texts(data)
        if cells:
            with open(path + CELL_TEXTS_SUFFIX, "w", encoding="utf-8") as f:
                json.dump({"format": CELL_TEXTS_FORMAT, "version": 1, "label": self.label, "cells": cells}, f)
        size = write_snapshot(data, path)
        events = sum(len(t) for t in _dict_get_list(data, "device_traces") if isinstance(t, list))
        _say("recorded %s (%d events, %d KiB): %s" % (self.label, events, max(1, size // 1024), path))
        return path

    def status(self) -> str:
        if not self.armed:
            return "not recording."
        if self.recording:
            return "recording %s." % self.label
        return self.problem or "%s waits for CUDA to start (the first tensor on the GPU)." % self.label

    def _snapshot_path(self) -> str:
        folder = os.environ.get(SNAPSHOT_DIR_VARIABLE) or os.path.join(os.getcwd(), DEFAULT_DIR)
        name = "%s-%s.pickle" % (time.strftime("%Y%m%d-%H%M%S"), re.sub(r"[^A-Za-z0-9_.-]+", "-", self.label).strip("-") or "vram")
        path = os.path.join(folder, name)
        n = 1
        while os.path.exists(path):
            n += 1
            path = os.path.join(folder, name[: -len(".pickle")] + "-%d.pickle" % n)
        if not os.path.isdir(folder):
            os.makedirs(folder)
        return path

    def _cell_texts(self, data: object) -> List[Dict[str, object]]:
        """The raw text of every cell whose code is in the snapshot's frames, from the kernel's history."""
        names = _frame_files(data)
        filename_map = getattr(getattr(self.shell, "compile", None), "_filename_map", None)
        history = getattr(getattr(self.shell, "history_manager", None), "input_hist_raw", None)
        if not isinstance(filename_map, dict) or not isinstance(history, list):
            return []
        cells: List[Dict[str, object]] = []
        for name in sorted(names):
            count = filename_map.get(name)
            if isinstance(count, int) and 0 <= count < len(history) and isinstance(history[count], str):
                cells.append({"file": name, "source": _raw_text(name, history[count]), "executionCount": count})
        return cells


_IPYKERNEL_NAME = re.compile(r"ipykernel_\d+[\\/](\d+)\.py$")


def _raw_text(name: str, history: str) -> str:
    """The text a cell ran with: IPython's history keeps it without its trailing line ends, while ipykernel named
    the cell by the hash of all of it; the ending whose hash is the name's number is the one (else the history's)."""
    match = _IPYKERNEL_NAME.search(name)
    if match is None:
        return history
    wanted = int(match.group(1))
    for ending in ("", "\n", "\n\n", "\r\n", "\n\n\n", "\r\n\r\n"):
        if cell_hash(history + ending) == wanted:
            return history + ending
    return history


def _dict_get_list(data: object, key: str) -> List[object]:
    value = data.get(key) if isinstance(data, dict) else None
    return value if isinstance(value, list) else []


def _frame_files(data: object) -> set[str]:
    """Every file name in the snapshot's frames (trace events, segments and their blocks)."""
    found: set[str] = set()

    def frames(entry: object) -> None:
        for frame in _dict_get_list(entry, "frames"):
            if isinstance(frame, dict) and isinstance(frame.get("filename"), str):
                found.add(frame["filename"])

    for trace in _dict_get_list(data, "device_traces"):
        for entry in trace if isinstance(trace, list) else []:
            frames(entry)
    for segment in _dict_get_list(data, "segments"):
        frames(segment)
        for block in _dict_get_list(segment, "blocks"):
            frames(block)
            for history in _dict_get_list(block, "history"):
                frames(history)
    return found


def _cell_frame() -> Optional[FrameType]:
    """The frame of the cell that called the magic: the nearest module-level code up the stack."""
    frame: Optional[FrameType] = sys._getframe(1)
    while frame is not None and frame.f_code.co_name != "<module>":
        frame = frame.f_back
    return frame


def _leading_blank_lines(source: str) -> int:
    """How many lines IPython's first transform drops from the top of `source` (blank or whitespace only)."""
    lines = source.splitlines(True)
    for i, line in enumerate(lines):
        if line and not line.isspace():
            return sum(part.count("\n") + part.count("\r") - part.count("\r\n") for part in lines[:i])
    return 0


def run_cell_body(shell: Shell, body: str, filename: str, first_line: int) -> object:
    """Runs `body` (a cell's text below its `%%vram` line) as the cell's own code: under the file name the kernel
    gave the cell, its lines numbered from `first_line` (the body's first line), IPython's transforms applied
    (magics in the body work). A last expression's value is returned (the cell shows it, as any cell does)."""
    transformed = shell.transform_cell(body)
    tree = ast.parse(transformed, filename=filename, mode="exec")
    ast.increment_lineno(tree, first_line - 1 + _leading_blank_lines(body))
    flags = getattr(getattr(shell, "compile", None), "flags", 0)
    namespace_globals = shell.user_global_ns
    namespace_locals = shell.user_ns
    last: Optional[ast.expr] = None
    final = tree.body[-1] if tree.body else None
    if isinstance(final, ast.Expr):
        tree.body.pop()
        last = final.value
    exec(compile(tree, filename, "exec", flags, True), namespace_globals, namespace_locals)
    if last is None:
        return None
    expression = ast.Expression(body=last)
    return eval(compile(expression, filename, "eval", flags, True), namespace_globals, namespace_locals)


class VramMagic(object):
    """`%vram start|stop|status` and `%%vram`, registered on the shell as one line-and-cell magic."""

    def __init__(self, shell: Shell) -> None:
        self.shell = shell
        self.recorder = Recorder(shell)

    def __call__(self, line: str, cell: Optional[str] = None) -> object:
        if cell is None:
            self.line(line.strip())
            return None
        return self.cell(line.strip(), cell)

    def line(self, argument: str) -> None:
        if argument == "start":
            if self.recorder.armed:
                _say("already " + self.recorder.status())
                return
            self.recorder.start("cells from [%s]" % self._count())
            _say("recording until %vram stop.")
        elif argument == "stop":
            if not self.recorder.armed:
                _say("not recording (%vram start begins).")
                return
            self.recorder.label = "%s to [%s]" % (self.recorder.label, self._count())
            self.recorder.stop()
        elif argument == "status":
            _say(self.recorder.status())
        else:
            _say(USAGE)

    def cell(self, argument: str, body: str) -> object:
        if self.recorder.armed:
            _say("already %s; this cell runs without a recording of its own." % self.recorder.status())
            return self._run(body)
        self.recorder.start(argument or "cell [%s]" % self._count())
        try:
            return self._run(body)
        finally:
            self.recorder.stop()

    def _run(self, body: str) -> object:
        frame = _cell_frame()
        if frame is None:  # not called from a cell (e.g. run_cell_magic from code): run it plainly
            return run_cell_body(self.shell, body, "<vram>", 1)
        # The magic line is the cell's line `frame.f_lineno`; the body starts on the next one.
        return run_cell_body(self.shell, body, frame.f_code.co_filename, frame.f_lineno + 1)

    def _count(self) -> str:
        """The running cell's execution count: the one the kernel's compiler filed its code under (IPython 9
        has moved `execution_count` on to the next cell's number while a cell runs; IPython 8 had not)."""
        frame = _cell_frame()
        filename_map = getattr(getattr(self.shell, "compile", None), "_filename_map", None)
        if frame is not None and isinstance(filename_map, dict):
            count = filename_map.get(frame.f_code.co_filename)
            if isinstance(count, int):
                return str(count)
        return str(getattr(self.shell, "execution_count", "?"))


_MAGICS: Dict[int, VramMagic] = {}


def load_ipython_extension(shell: Shell) -> None:
    """`%load_ext vram_lens.notebook`: registers %vram / %%vram on this shell."""
    magic = _MAGICS.get(id(shell))
    if magic is None:
        magic = _MAGICS[id(shell)] = VramMagic(shell)
    register: Callable[..., None] = shell.register_magic_function
    register(magic, magic_kind="line_cell", magic_name="vram")


def unload_ipython_extension(shell: Shell) -> None:
    """`%unload_ext vram_lens.notebook`: a recording in progress is written and stopped."""
    magic = _MAGICS.pop(id(shell), None)
    if magic is not None and magic.recorder.armed:
        magic.recorder.stop()
